#!/usr/bin/env python3
"""Writes an empty OpenDocument text: empty-odt.py FILE.odt (one empty paragraph)."""
import sys
import zipfile

MANIFEST = """<?xml version="1.0" encoding="UTF-8"?>
<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3">
 <manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/>
 <manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>
</manifest:manifest>
"""
CONTENT = """<?xml version="1.0" encoding="UTF-8"?>
<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
 xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.3">
 <office:body><office:text><text:p/></office:text></office:body>
</office:document-content>
"""

with zipfile.ZipFile(sys.argv[1], "w") as odt:
    # The mimetype comes first and uncompressed, as OpenDocument requires.
    odt.writestr(zipfile.ZipInfo("mimetype"), "application/vnd.oasis.opendocument.text")
    odt.writestr("META-INF/manifest.xml", MANIFEST, zipfile.ZIP_DEFLATED)
    odt.writestr("content.xml", CONTENT, zipfile.ZIP_DEFLATED)

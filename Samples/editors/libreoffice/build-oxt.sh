#!/bin/sh
# Packs this folder's extension into OUTPUT_FOLDER/clsfile.oxt (the current folder by default).
# Usage: Samples/editors/libreoffice/build-oxt.sh [OUTPUT_FOLDER]
set -eu
source=$(cd "$(dirname "$0")" && pwd)
output=${1:-.}
mkdir -p "$output"
output=$(cd "$output" && pwd)
rm -f "$output/clsfile.oxt"
# An .oxt is a zip file; python3's zipfile is used since zip(1) is often missing.
cd "$source"
python3 - "$output/clsfile.oxt" <<'PY'
import sys, zipfile
files = ["META-INF/manifest.xml", "description.xml", "description-en.txt", "Jobs.xcu", "Addons.xcu",
         "clsfile.py", "pythonpath/clsfile_tracker.py"]
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as oxt:
    for name in files:
        oxt.write(name, name)
PY
echo "$output/clsfile.oxt"

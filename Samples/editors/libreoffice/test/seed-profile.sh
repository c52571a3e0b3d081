#!/bin/sh
# Writes a LibreOffice user profile that opens no first-start dialogs (the Tip of the Day and the
# first-run infobar take Ctrl+S and other shortcuts): seed-profile.sh PROFILE, where PROFILE is
# what -env:UserInstallation=file://PROFILE names (the profile itself is PROFILE/user).
set -eu
mkdir -p "$1/user"
cat > "$1/user/registrymodifications.xcu" <<'XCU'
<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="ShowTipOfTheDay" oor:op="fuse"><value>false</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="FirstRun" oor:op="fuse"><value>false</value></prop></item>
<item oor:path="/org.openoffice.Setup/Product"><prop oor:name="ooSetupLastVersion" oor:op="fuse"><value>7.4</value></prop></item>
</oor:items>
XCU

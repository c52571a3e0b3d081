#!/usr/bin/env bash
# The LibreOffice extension's cost to typing: types the same 2,000 characters with xdotool into
# two Writer instances under Xvfb, one with the clsfile extension installed and one without, and
# prints the wall time of each from the first key until the document saved with them is on disk
# (the save, Ctrl+S, is handled after every key before it), and the ratio. Rounds alternate
# between the two, so that the machine's drift affects both alike.
#
# Usage: Benchmarks/writer-typing.sh [ROUNDS]   (3 by default)
# Environment: CLSFILE_COMMAND, the clsfile the extension runs (.build/debug/clsfile by default).
# Needs: libreoffice-writer libreoffice-script-provider-python xvfb openbox xdotool.
set -euo pipefail

rounds=${1:-3}
package=$(cd "$(dirname "$0")/.." && pwd)
for program in soffice unopkg Xvfb openbox xdotool; do
    command -v "$program" >/dev/null || {
        echo "writer-typing: $program is missing: apt-get install -y libreoffice-writer libreoffice-script-provider-python xvfb openbox xdotool" >&2
        exit 69
    }
done
export CLSFILE_COMMAND=${CLSFILE_COMMAND:-$package/.build/debug/clsfile}
[ -x "$CLSFILE_COMMAND" ] || { echo "writer-typing: $CLSFILE_COMMAND is missing: swift build --product clsfile" >&2; exit 66; }

work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT
export CLSFILE_STORE="$work/store.sqlite"

# A private display with a window manager (xdotool activates windows through it).
exec 3> "$work/display"
Xvfb -displayfd 3 -screen 0 1280x900x24 -nolisten tcp >/dev/null 2>&1 &
pids+=($!)
for _ in $(seq 50); do [ -s "$work/display" ] && break; sleep 0.1; done
export DISPLAY=":$(head -1 "$work/display")"
openbox >/dev/null 2>&1 &
pids+=($!)

"$package/Samples/editors/libreoffice/build-oxt.sh" "$work" >/dev/null

# unopkg refuses to install for the user as root: run it as another user id in a user namespace.
as_user() { if [ "$(id -u)" = 0 ]; then unshare --user --map-user=1000 --map-group=1000 "$@"; else "$@"; fi; }

# Starts Writer with a profile of its own on a new document NAME.odt; prints its window id.
start_writer() {
    local name=$1 extension=$2 profile="$work/$1-profile"
    "$package/Samples/editors/libreoffice/test/seed-profile.sh" "$profile"
    if [ "$extension" = yes ]; then
        as_user unopkg add --force "-env:UserInstallation=file://$profile" "$work/clsfile.oxt" >/dev/null
    fi
    "$package/Samples/editors/libreoffice/test/empty-odt.py" "$work/$name.odt"
    soffice "-env:UserInstallation=file://$profile" --norestore --nologo "$work/$name.odt" >/dev/null 2>&1 &
    pids+=($!)
    local window=""
    for _ in $(seq 150); do
        window=$(xdotool search --name "^$name.odt" 2>/dev/null | head -1) && [ -n "$window" ] && break
        sleep 0.1
    done
    [ -n "$window" ] || { echo "writer-typing: Writer did not open $name.odt" >&2; exit 70; }
    echo "$window"
}

# 2,000 characters of lowercase words (keys on every keyboard map, and no autocorrection).
text=$(python3 -c '
import random
random.seed(7)
words = "the of and to in is was for on are with as by at from this that have not but".split()
out = ""
while len(out) < 2000:
    out += random.choice(words) + " "
print(out[:2000], end="")')

# Types the text into a window and saves; prints the seconds until the saved file changed.
type_into() {
    local window=$1 file=$2
    xdotool windowactivate --sync "$window"
    sleep 1
    local before
    before=$(stat -c %Y.%s "$file")
    local start
    start=$(date +%s.%N)
    xdotool type --delay 1 "$text"
    xdotool key ctrl+s
    while [ "$(stat -c %Y.%s "$file")" = "$before" ]; do sleep 0.02; done
    # Writer writes the file in place: wait until its size stays put.
    local size=""
    while [ "$size" != "$(stat -c %s "$file")" ]; do size=$(stat -c %s "$file"); sleep 0.05; done
    python3 -c "print(round($(date +%s.%N) - $start - 0.05, 2))"
}

plain=$(start_writer plain no)
with=$(start_writer with yes)
sleep 2
plain_times=() with_times=()
for round in $(seq "$rounds"); do
    if [ $((round % 2)) = 1 ]; then
        plain_times+=("$(type_into "$plain" "$work/plain.odt")")
        with_times+=("$(type_into "$with" "$work/with.odt")")
    else
        with_times+=("$(type_into "$with" "$work/with.odt")")
        plain_times+=("$(type_into "$plain" "$work/plain.odt")")
    fi
done
python3 - "${plain_times[*]}" "${with_times[*]}" <<'PY'
import statistics, sys
plain = [float(t) for t in sys.argv[1].split()]
with_ = [float(t) for t in sys.argv[2].split()]
print("2,000 characters typed into Writer, seconds until saved (%d rounds):" % len(plain))
print("  without the extension: %s  median %.2f" % (" ".join("%.2f" % t for t in plain), statistics.median(plain)))
print("  with the extension:    %s  median %.2f" % (" ".join("%.2f" % t for t in with_), statistics.median(with_)))
print("  ratio (with / without, medians): %.3f" % (statistics.median(with_) / statistics.median(plain)))
PY

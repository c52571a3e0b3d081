#!/usr/bin/env python3
"""Names the symbols of a program that one run touches, in the order it first touches them.

Reads a Valgrind Lackey trace (`valgrind --tool=lackey --trace-mem=yes`) on standard input: one
line an instruction fetched ("I  ADDRESS,SIZE") or a load, store or modify (" L ADDRESS,SIZE").
The addresses inside the program's code and zeroed data are turned into the names of the
functions and data they fall in (its symbol table, read with nm), and each name not printed yet is
printed on a line of its own.
Scripts/start-up-order gathers these for clsfile's start-up paths into the linker's symbol
ordering file.

Usage: start-up-symbols.py PROGRAM [SEEN] < TRACE
    PROGRAM  the binary that ran (with its symbol table; its debug information may be stripped)
    SEEN     a file of names already ordered, which are not printed again (optional)
"""

import bisect
import re
import subprocess
import sys

# Valgrind loads a position-independent program at this address; the run is checked against it.
LOAD_ADDRESS = 0x108000


# The sections whose order decides how many pages a run touches: code, and data that starts as
# zeros (each page of it touched is one more fault). Not the data the loader relocates (.data,
# .data.rel.ro), every page of which is written at each start whatever its order, nor the
# constants (.rodata), whose order made no difference that could be measured.
ORDERED_SECTIONS = (".text", ".bss")


def sections(program):
    """The address ranges of the program's ORDERED_SECTIONS."""
    headers = subprocess.run(["readelf", "-S", "-W", program], capture_output=True, text=True, check=True).stdout
    ranges = []
    for line in headers.splitlines():
        match = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)", line)
        if match and match.group(1) in ORDERED_SECTIONS:
            start = int(match.group(2), 16)
            ranges.append((start, start + int(match.group(3), 16)))
    return ranges


def symbols(program):
    """The defined symbols with a size in ORDERED_SECTIONS, as sorted starts and (start, end, name)."""
    listing = subprocess.run(
        ["nm", "--defined-only", "--print-size", program], capture_output=True, text=True, check=True
    ).stdout
    ranges = sections(program)
    found = []
    for line in listing.splitlines():
        fields = line.split()
        if len(fields) != 4:
            continue
        start, size = int(fields[0], 16), int(fields[1], 16)
        if size > 0 and any(low <= start < high for low, high in ranges):
            found.append((start, start + size, fields[3]))
    found.sort()
    return [start for start, _, _ in found], found


def entry_point(program):
    """The program's entry address, from its ELF header."""
    header = subprocess.run(["readelf", "-h", program], capture_output=True, text=True, check=True).stdout
    match = re.search(r"Entry point address:\s+0x([0-9a-f]+)", header)
    if not match:
        sys.exit(f"start-up-symbols: no entry point in {program}'s ELF header; is it an ELF program?")
    return int(match.group(1), 16)


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    program = sys.argv[1]
    seen_names = set()
    if len(sys.argv) == 3:
        with open(sys.argv[2], encoding="utf-8") as seen:
            seen_names = {line.rstrip("\n") for line in seen}
    starts, table = symbols(program)
    start_instruction = LOAD_ADDRESS + entry_point(program)
    started = False
    seen_addresses = set()
    output = sys.stdout
    for line in sys.stdin:
        # "I  0063a1b0,3", " L 1fff000630,8", " S …", " M …"
        if len(line) < 4 or line[0] not in "I " or line[1] not in " LSM":
            continue
        address = int(line[3:].split(",", 1)[0], 16)
        if address == start_instruction:
            started = True
        if address in seen_addresses:
            continue
        seen_addresses.add(address)
        offset = address - LOAD_ADDRESS
        index = bisect.bisect_right(starts, offset) - 1
        if index < 0 or offset >= table[index][1]:
            continue
        name = table[index][2]
        if name not in seen_names:
            seen_names.add(name)
            output.write(name + "\n")
    if not started:
        sys.exit(
            f"start-up-symbols: the trace never ran {program}'s entry point at {start_instruction:#x}: "
            "Valgrind loaded it elsewhere, or the trace is of another program"
        )


if __name__ == "__main__":
    main()

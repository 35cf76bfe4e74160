"""Checks a recipe's --csv files against its --json file (spec/csv_spec.lua).

    python3 spec/support/csv_check.py RUN.json CSV...

Each CSV file must be plain RFC 4180 as Python's csv module reads it: the
header first (no comment lines), one row per row of the JSON table of the same
id (named by the CSV's sidecar, STEM.meta.json), the header naming each column
"name (unit)" as the JSON does, and every field equal to the JSON's value
(numbers to 1e-12 relative, nulls as empty fields, a text that starts with
= + - @ tab or CR behind a '). Where pandas is installed,
pandas.read_csv must read the file with the same shape and header. Prints one
line per file and exits 1 at the first difference.
"""
import csv
import json
import math
import re
import sys


def fail(msg):
    print("csv_check: " + msg)
    sys.exit(1)


def header(col):
    unit = col.get("unit")
    return "%s (%s)" % (col["name"], unit) if unit else col["name"]


def as_text(s):
    """A text value as clua writes it in a CSV file: behind a ' where it
    starts (after any spaces) with = + - @ tab CR or LF, so that no
    spreadsheet reads it as a formula (clua.escape.csv, OWASP's advice)."""
    return "'" + s if re.match(r"^ *[=+\-@\t\r\n]", s) else s


def same(field, value, where):
    if value is None:
        if field != "":
            fail("%s: %r where the JSON has null" % (where, field))
    elif isinstance(value, bool):
        if field != ("true" if value else "false"):
            fail("%s: %r where the JSON has %r" % (where, field, value))
    elif isinstance(value, (int, float)):
        try:
            got = float(field)
        except ValueError:
            fail("%s: %r is not the number %r" % (where, field, value))
        if not math.isclose(got, value, rel_tol=1e-12, abs_tol=1e-300):
            fail("%s: %r where the JSON has %r" % (where, field, value))
    elif field != as_text(str(value)):
        fail("%s: %r where the JSON has %r" % (where, field, value))


def main():
    doc = json.load(open(sys.argv[1], encoding="utf-8"))
    tables = {t["id"]: t for t in doc["tables"]}
    try:
        import pandas
    except ImportError:
        pandas = None
    for path in sys.argv[2:]:
        stem = path[:-4] if path.endswith(".csv") else path
        meta = json.load(open(stem + ".meta.json", encoding="utf-8"))
        t = tables.get(meta["id"])
        if t is None:
            fail("%s: no table %r in the JSON" % (path, meta["id"]))
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.reader(f))
        want = [header(c) for c in t["columns"]]
        if not rows or rows[0] != want:
            fail("%s: header %r, the JSON's columns %r" % (path, rows[:1], want))
        body = rows[1:]
        if len(body) != len(t["rows"]):
            fail("%s: %d rows, the JSON %d" % (path, len(body), len(t["rows"])))
        for i, (fields, row) in enumerate(zip(body, t["rows"])):
            if len(fields) != len(want):
                fail("%s: row %d has %d fields" % (path, i + 1, len(fields)))
            for field, col in zip(fields, t["columns"]):
                same(field, row.get(col["name"]), "%s: row %d, %s" % (path, i + 1, col["name"]))
        if pandas is not None:
            frame = pandas.read_csv(path)
            if list(frame.columns) != want or frame.shape[0] != len(body):
                fail("%s: pandas read %r rows of %r" % (path, frame.shape[0], list(frame.columns)))
        print("%s: %d rows, %d columns%s" % (path, len(body), len(want), ", pandas too" if pandas else ""))


main()

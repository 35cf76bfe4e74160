#!/usr/bin/env python3
"""Validates clua's JSON files against the JSON Schema files in schema/.

    schema_check.py [--legacy clua.KIND/N] FILE...

Each FILE names its schema in its field "schema" ("clua.recipe/1" is
schema/recipe-1.json); with --legacy, a file without that field (written
before clua's JSON named its schema) is checked against the one given.
Every schema file is checked first (Draft 2020-12). Beyond what JSON Schema
says, each table's rows may only name its columns, its column names are
distinct, and its cells (when there) are one string a column for each row.
Prints each problem as FILE: WHERE: WHAT and exits 1 if there is any.
Needs python3-jsonschema (Debian).
"""
import glob
import json
import os
import re
import sys

import jsonschema

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA_DIR = os.path.normpath(os.path.join(HERE, "..", "..", "schema"))
Validator = jsonschema.Draft202012Validator


def load_schemas():
    store = {}
    for path in sorted(glob.glob(os.path.join(SCHEMA_DIR, "*.json"))):
        with open(path, encoding="utf-8") as f:
            schema = json.load(f)
        Validator.check_schema(schema)
        store["file://" + path] = schema
    return store


def validator(store, uri):
    """A validator of the schema at uri whose $refs find the other files:
    through `referencing` (jsonschema 4.18 and later), else RefResolver
    (Debian 12's jsonschema 4.10)."""
    try:
        import referencing
        import referencing.jsonschema
    except ImportError:
        resolver = jsonschema.RefResolver(base_uri=uri, referrer=store[uri], store=store)
        return Validator(store[uri], resolver=resolver)
    spec = referencing.jsonschema.DRAFT202012
    registry = referencing.Registry().with_resources(
        (u, referencing.Resource(contents=s, specification=spec)) for u, s in store.items())
    schema = dict(store[uri], **{"$id": uri})
    return Validator(schema, registry=registry)


def tables_of(doc):
    """Every table in a document, with where it is."""
    if "columns" in doc and "rows" in doc:
        yield "", doc
    for i, t in enumerate(doc.get("tables") or []):
        yield "tables/%d" % i, t
    for i, r in enumerate(doc.get("recipes") or []):
        for j, t in enumerate(r.get("tables") or []):
            yield "recipes/%d/tables/%d" % (i, j), t
    if isinstance(doc.get("roofline"), dict):
        yield "roofline", doc["roofline"]


def table_problems(doc):
    for where, t in tables_of(doc):
        names = [c.get("name") for c in t.get("columns") or []]
        if len(set(names)) != len(names):
            yield where, "column names repeat: %s" % names
        for i, row in enumerate(t.get("rows") or []):
            extra = sorted(set(row) - set(names)) if isinstance(row, dict) else []
            if extra:
                yield "%s/rows/%d" % (where, i), "values of no column: %s" % extra
        cells = t.get("cells")
        if cells is not None:
            if len(cells) != len(t.get("rows") or []):
                yield where, "%d rows of cells for %d rows" % (len(cells), len(t.get("rows") or []))
            for i, c in enumerate(cells):
                if len(c) != len(names):
                    yield "%s/cells/%d" % (where, i), "%d cells for %d columns" % (len(c), len(names))


def main(argv):
    legacy = None
    if argv[:1] == ["--legacy"]:
        legacy, argv = argv[1], argv[2:]
    store = load_schemas()
    bad = 0
    for path in argv:
        def problem(where, what):
            nonlocal bad
            bad += 1
            print("%s: %s: %s" % (path, where or "(top)", what))
        try:
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            problem("", "cannot read: %s" % e)
            continue
        name = doc.get("schema") if isinstance(doc, dict) else None
        if name is None and legacy:
            name = doc["schema"] = legacy
        m = re.match(r"^clua\.([a-z-]+)/([0-9]+)$", str(name))
        if not m:
            problem("schema", "names no clua schema: %r" % (name,))
            continue
        uri = "file://" + os.path.join(SCHEMA_DIR, "%s-%s.json" % m.groups())
        if uri not in store:
            problem("schema", "%s: no schema file %s" % (name, uri[7:]))
            continue
        v = validator(store, uri)
        for e in sorted(v.iter_errors(doc), key=lambda e: list(e.absolute_path)):
            problem("/".join(str(p) for p in e.absolute_path), e.message[:300])
        for where, what in table_problems(doc):
            problem(where, what)
    print("%d files, %d problems" % (len(argv), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

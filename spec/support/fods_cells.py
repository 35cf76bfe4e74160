"""The cells of spreadsheets that LibreOffice saved as flat OpenDocument
(.fods), for spec/hostile_soffice_spec.lua: what a spreadsheet made of a
CSV it opened.

    python3 spec/support/fods_cells.py FILE.fods...

Prints one JSON document: {FILE: rows}, each row a list of its cells, each
cell {"type": office:value-type or "", "formula": table:formula or null,
"link": true where the cell holds a hyperlink (text:a), "text": its text}
(paragraphs joined by a line feed; text:s, text:tab and text:line-break as
the spaces, tab and line feed they stand for). A repeated cell is repeated
(empty ones at most 64 times: a row's padding), empty cells at a row's end
and empty rows are left out.
"""
import json
import sys
import xml.etree.ElementTree as ET

NS = {
    "office": "urn:oasis:names:tc:opendocument:xmlns:office:1.0",
    "table": "urn:oasis:names:tc:opendocument:xmlns:table:1.0",
    "text": "urn:oasis:names:tc:opendocument:xmlns:text:1.0",
}


def q(prefix, name):
    return "{%s}%s" % (NS[prefix], name)


def inline(el):
    """The text of a paragraph (or a span inside one), its marks as characters."""
    out = [el.text or ""]
    for child in el:
        if child.tag == q("text", "s"):
            out.append(" " * int(child.get(q("text", "c"), "1")))
        elif child.tag == q("text", "tab"):
            out.append("\t")
        elif child.tag == q("text", "line-break"):
            out.append("\n")
        else:
            out.append(inline(child))
        out.append(child.tail or "")
    return "".join(out)


def cell(el):
    paras = el.findall(q("text", "p"))
    return {
        "type": el.get(q("office", "value-type"), ""),
        "formula": el.get(q("table", "formula")),
        "link": el.find(".//" + q("text", "a")) is not None,
        "text": "\n".join(inline(p) for p in paras),
    }


def rows(path):
    out = []
    for row in ET.parse(path).getroot().iter(q("table", "table-row")):
        cells = []
        for el in row:
            if el.tag not in (q("table", "table-cell"), q("table", "covered-table-cell")):
                continue
            c = cell(el)
            n = int(el.get(q("table", "number-columns-repeated"), "1"))
            empty = not (c["type"] or c["formula"] or c["text"])
            cells.extend([c] * (min(n, 64) if empty else n))
        while cells and not (cells[-1]["type"] or cells[-1]["formula"] or cells[-1]["text"]):
            cells.pop()
        if cells:
            out.append(cells)
    return out


def main():
    print(json.dumps({path: rows(path) for path in sys.argv[1:]}))


if __name__ == "__main__":
    main()

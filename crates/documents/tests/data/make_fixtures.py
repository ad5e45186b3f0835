#!/usr/bin/env python3
"""Writes the document fixtures the tests of wikimind-documents read.

Every file is written by an independent library from PyPI, never by WikiMind:
`reportlab` (PDF), `python-docx` (DOCX) and `ebooklib` (EPUB); the hostile ones are
those files cut or bent by hand. The files are committed beside this script (small, so CI
needs no Python for them); run it again after changing it:

    python3 -m venv /tmp/fixtures-venv
    /tmp/fixtures-venv/bin/pip install reportlab==5.1.0 python-docx==1.2.0 ebooklib==0.20
    /tmp/fixtures-venv/bin/python crates/documents/tests/data/make_fixtures.py

`--big DIR` also writes the benchmark inputs (a 300-page PDF and a 2 MB EPUB) into DIR,
outside the repository.
"""
import io
import os
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))


def words(seed, n):
    """n plain words, deterministic, with no marker in them."""
    vocab = ("river stone lamp quiet market harbour winter garden letter copper field "
             "signal window meadow lantern ribbon orchard pebble thistle cobalt").split()
    return " ".join(vocab[(seed * 7 + i * 3) % len(vocab)] for i in range(n))


# ---------------------------------------------------------------- PDF
def fill_line(marker, seed, width, font, size):
    """The marker followed by words until the line fills `width` points, as a justified
    column's line does."""
    from reportlab.pdfbase.pdfmetrics import stringWidth
    vocab = words(seed, 40).split()
    text = marker
    for word in vocab:
        if stringWidth(text + " " + word, font, size) > width:
            break
        text += " " + word
    return text


def pdf_fixtures(out):
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    w, h = A4

    def save(name, draw, **kw):
        buf = io.BytesIO()
        c = canvas.Canvas(buf, pagesize=A4, invariant=1, **kw)
        c.setTitle(kw.pop("title", None) or "")
        draw(c)
        c.save()
        data = buf.getvalue()
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
        return data

    def columns(n_cols, interleaved):
        """Markers C{col}L{line} in n columns; drawn line by line across the page when
        `interleaved` (so the content stream reads across), else column by column."""
        def draw(c):
            c.setTitle(f"{n_cols} columns")
            gap = 20
            col_w = (w - 2 * 50 - gap * (n_cols - 1)) / n_cols
            lines = 30
            positions = []
            for col in range(n_cols):
                for line in range(lines):
                    positions.append((col, line))
            if interleaved:
                positions.sort(key=lambda p: (p[1], p[0]))
            c.setFont("Helvetica-Bold", 16)
            c.drawString(50, h - 60, f"A paper in {n_cols} columns")
            c.setFont("Helvetica", 9)
            for col, line in positions:
                x = 50 + col * (col_w + gap)
                y = h - 100 - line * 11  # 1.2 times the font size, as set text is
                c.drawString(x, y, fill_line(f"C{col + 1}L{line + 1:02d}",
                                             col * 31 + line, col_w, "Helvetica", 9))
            c.showPage()
        return draw

    save("columns-1.pdf", columns(1, False))
    save("columns-2.pdf", columns(2, True))
    save("columns-3.pdf", columns(3, True))

    def hyphen(c):
        c.setFont("Helvetica", 11)
        y = h - 80
        for line in ["The committee found the proposal extra-",
                     "ordinary in its reach, and the well-known",
                     "objection was set aside after a long discus-",
                     "sion of the evidence."]:
            c.drawString(60, y, line)
            y -= 15
        c.showPage()
    save("hyphenation.pdf", hyphen)

    def running(c):
        for page in range(1, 7):
            c.setFont("Helvetica-Oblique", 9)
            c.drawString(60, h - 40, "Proceedings of the Fixture Society, Volume 7")
            c.setFont("Helvetica", 11)
            c.drawString(60, h - 100, f"Body of page {page}: BODY{page} " + words(page, 6))
            c.drawString(60, h - 115, words(page + 50, 9))
            c.setFont("Helvetica", 9)
            c.drawCentredString(w / 2, 40, f"{page}")
            c.showPage()
    save("running-headers.pdf", running)

    def ligatures(c):
        pdfmetrics.registerFont(TTFont("Vera", "Vera.ttf"))
        c.setFont("Vera", 12)
        c.drawString(60, h - 80, "The \ufb01nal \ufb02ow of \ufb01sh was \ufb01ne.")
        c.drawString(60, h - 100, "Caf\u00e9 na\u00efve \u00fcber \u2014 \u201cquoted\u201d")
        c.showPage()
    save("ligatures.pdf", ligatures)

    def table(c):
        c.setFont("Helvetica-Bold", 14)
        c.drawString(60, h - 60, "Harvest by year")
        rows = [("Crop", "Year", "Tonnes"), ("Barley", "2021", "410"),
                ("Oats", "2022", "385"), ("Rye", "2023", "97")]
        x0, y0, cw, rh = 60, h - 90, 120, 20
        c.setFont("Helvetica", 10)
        for r, row in enumerate(rows):
            for k, cell in enumerate(row):
                c.rect(x0 + k * cw, y0 - (r + 1) * rh, cw, rh)
                c.drawString(x0 + k * cw + 5, y0 - (r + 1) * rh + 6, cell)
        c.drawString(60, y0 - 6 * rh, "The table above lists three harvests.")
        c.showPage()
    save("table.pdf", table)

    def scan(c):
        # A page that is only a picture: filled shapes, no text layer at all.
        for i in range(40):
            c.setFillGray((i % 10) / 10)
            c.rect(50 + (i % 8) * 60, 100 + (i // 8) * 120, 55, 110, fill=1, stroke=0)
        c.showPage()
        c.showPage()
    save("scan.pdf", scan)

    def labelled(c):
        c.addPageLabel(0, style="ROMAN_LOWER")
        c.addPageLabel(2, style="ARABIC", start=1)
        for page in range(5):
            c.setFont("Helvetica", 12)
            c.drawString(60, h - 80, f"Physical page {page + 1}: PHYS{page + 1} " + words(page, 5))
            c.showPage()
    save("page-labels.pdf", labelled)

    def encrypted(c):
        c.setFont("Helvetica", 12)
        c.drawString(60, h - 80, "A secret nobody may read.")
        c.showPage()
    save("encrypted.pdf", encrypted, encrypt="secret")

    full = open(os.path.join(out, "columns-1.pdf"), "rb").read()
    with open(os.path.join(out, "truncated.pdf"), "wb") as f:
        f.write(full[: len(full) * 2 // 3])
    with open(os.path.join(out, "page-tree-loop.pdf"), "wb") as f:
        f.write(page_tree_loop())
    with open(os.path.join(out, "not-a-pdf.pdf"), "wb") as f:
        f.write(b"This is a text file that says it is a PDF.\n")


def page_tree_loop():
    """A PDF whose page tree holds itself: /Pages 2 lists 3, and 3 (a /Pages) lists 2."""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>",
        b"<< /Type /Pages /Parent 2 0 R /Kids [2 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 300] /Contents 5 0 R "
        b"/Resources << /Font << /F1 6 0 R >> >> >>",
        None,
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    stream = b"BT /F1 12 Tf 20 200 Td (Loop page text) Tj ET"
    objects[4] = b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream"
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for o in offsets:
        out += b"%010d 00000 n \n" % o
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def big_pdf(path, pages=300):
    """A 300-page two-column paper drawn line by line across the page."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas
    w, h = A4
    c = canvas.Canvas(path, pagesize=A4, invariant=1)
    for page in range(1, pages + 1):
        c.setFont("Helvetica", 8)
        c.drawString(50, h - 30, "The Long Report")
        c.setFont("Helvetica", 9)
        for line in range(50):
            for col in range(2):
                x = 50 + col * 260
                c.drawString(x, h - 60 - line * 11,
                             fill_line(f"P{page}C{col + 1}L{line + 1:02d}", page + col + line,
                                       245, "Helvetica", 9))
        c.drawCentredString(w / 2, 30, str(page))
        c.showPage()
    c.save()


# ---------------------------------------------------------------- DOCX
def docx_fixtures(out):
    import docx
    from docx.shared import Pt  # noqa: F401

    d = docx.Document()
    d.core_properties.title = "Field Notes on Rivers"
    d.add_heading("Field Notes on Rivers", level=1)
    d.add_paragraph("Rivers carry sediment from the hills to the sea. ", style=None).add_run(
        "Bold words").bold = True
    d.add_heading("Measurements", level=2)
    d.add_paragraph("First point on depth", style="List Bullet")
    d.add_paragraph("Second point on speed", style="List Bullet")
    d.add_paragraph("Step one", style="List Number")
    d.add_paragraph("Step two", style="List Number")
    t = d.add_table(rows=3, cols=3)
    for r, row in enumerate([("River", "Length", "Mouth"), ("Rhine", "1230", "North Sea"),
                             ("Loire", "1006", "Atlantic | Bay")]):
        for k, cell in enumerate(row):
            t.cell(r, k).text = cell
    d.add_heading("Conclusions", level=2)
    d.add_paragraph("The Rhine is longer than the Loire.")
    d.save(os.path.join(out, "report.docx"))

    # A generic title in the metadata: the first heading is the document's title.
    d = docx.Document()
    d.core_properties.title = "Microsoft Word - Document1"
    d.add_heading("Minutes of the Garden Club", level=1)
    d.add_paragraph("The club met on Tuesday.")
    d.save(os.path.join(out, "generic-title.docx"))

    add_footnote(os.path.join(out, "report.docx"), os.path.join(out, "footnotes.docx"))

    # A zip bomb: word/document.xml inflates to 200 MB of spaces.
    with zipfile.ZipFile(os.path.join(out, "zip-bomb.docx"), "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", CONTENT_TYPES)
        z.writestr("word/document.xml", b"<w:document>" + b" " * (200 * 1024 * 1024) + b"</w:document>")
    # An entity bomb ("billion laughs") in document.xml.
    with zipfile.ZipFile(os.path.join(out, "entity-bomb.docx"), "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", CONTENT_TYPES)
        z.writestr("word/document.xml", ENTITY_BOMB.replace(b"ROOT", b"w:document"))
    with open(os.path.join(out, "not-a-zip.docx"), "wb") as f:
        f.write(b"Just some words, not a zip archive.\n")


CONTENT_TYPES = (b'<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/'
                 b'package/2006/content-types"></Types>')
ENTITY_BOMB = (b'<?xml version="1.0"?>\n<!DOCTYPE lolz [\n<!ENTITY lol "lol">\n'
               + b"".join(b'<!ENTITY lol%d "%s">\n' % (i, (b"&lol%d;" % (i - 1) if i > 1 else b"&lol;") * 10)
                          for i in range(1, 10))
               + b']>\n<ROOT>&lol9;</ROOT>\n')


def add_footnote(src, dst):
    """python-docx writes no footnotes: add one by hand (footnotes.xml, its relation, its
    reference in the body), as Word lays them out."""
    W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
    footnotes = (
        f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:footnotes xmlns:w="{W}">'
        '<w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:footnote>'
        '<w:footnote w:id="1"><w:p><w:r><w:footnoteRef/></w:r><w:r><w:t xml:space="preserve"> '
        'Measured at Basel in 2020.</w:t></w:r></w:p></w:footnote></w:footnotes>')
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for item in zin.infolist():
            data = zin.read(item.filename)
            if item.filename == "word/document.xml":
                data = data.replace(
                    b"The Rhine is longer than the Loire.</w:t></w:r>",
                    b"The Rhine is longer than the Loire.</w:t></w:r>"
                    b'<w:r><w:footnoteReference w:id="1"/></w:r>', 1)
            if item.filename == "word/_rels/document.xml.rels":
                data = data.replace(
                    b"</Relationships>",
                    b'<Relationship Id="rIdFn1" Type="http://schemas.openxmlformats.org/'
                    b'officeDocument/2006/relationships/footnotes" Target="footnotes.xml"/>'
                    b"</Relationships>")
            if item.filename == "[Content_Types].xml":
                data = data.replace(
                    b"</Types>",
                    b'<Override PartName="/word/footnotes.xml" ContentType="application/'
                    b'vnd.openxmlformats-officedocument.wordprocessingml.footnotes+xml"/></Types>')
            zout.writestr(item, data)
        zout.writestr("word/footnotes.xml", footnotes)


# ---------------------------------------------------------------- EPUB
def epub_fixtures(out):
    write_epub(os.path.join(out, "book.epub"), "The Lighthouse Keeper", [
        ("Arrival", "<h1>Arrival</h1><p>The keeper came to the island in March.</p>"
                    "<p>He brought <em>three</em> crates of oil.</p>"),
        ("The Storm", "<h1>The Storm</h1><p>A storm broke the northern window.</p>"
                      "<ul><li>Wind from the west</li><li>Rain all night</li></ul>"),
        ("Departure", "<h1>Departure</h1><p>In autumn the keeper left by boat.</p>"),
    ], spine_order=[2, 0, 1])
    write_epub(os.path.join(out, "untitled.epub"), "Untitled", [
        ("One", "<h1>Notes from the Harbour</h1><p>Boats came in at dawn.</p>"),
    ])
    with zipfile.ZipFile(os.path.join(out, "not-an-epub.epub"), "w") as z:
        z.writestr("readme.txt", "A zip with no container.xml in it.")
    with zipfile.ZipFile(os.path.join(out, "entity-bomb.epub"), "w") as z:
        z.writestr("mimetype", "application/epub+zip")
        z.writestr("META-INF/container.xml", ENTITY_BOMB.replace(b"ROOT", b"container"))
    # A container that points outside the archive.
    with zipfile.ZipFile(os.path.join(out, "escape.epub"), "w") as z:
        z.writestr("mimetype", "application/epub+zip")
        z.writestr("META-INF/container.xml",
                   '<?xml version="1.0"?><container xmlns="urn:oasis:names:tc:opendocument:'
                   'xmlns:container"><rootfiles><rootfile full-path="../../etc/passwd" '
                   'media-type="application/oebps-package+xml"/></rootfiles></container>')


def write_epub(path, title, chapters, spine_order=None):
    """An EPUB by ebooklib. `spine_order` lists chapter indexes in reading order when the
    manifest's order should differ from it."""
    from ebooklib import epub
    book = epub.EpubBook()
    book.set_identifier("fixture-" + os.path.basename(path))
    book.set_title(title)
    book.set_language("en")
    items = []
    for i, (name, body) in enumerate(chapters):
        item = epub.EpubHtml(title=name, file_name=f"chap_{i + 1}.xhtml", lang="en")
        item.content = f"<html><body>{body}</body></html>"
        book.add_item(item)
        items.append(item)
    order = [items[i] for i in (spine_order or range(len(items)))]
    book.toc = tuple(order)
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    book.spine = ["nav"] + order
    epub.write_epub(path, book)


def big_epub(path):
    chapters = []
    size = 0
    i = 0
    while size < 2 * 1024 * 1024:
        i += 1
        paras = "".join(f"<p>Chapter {i} paragraph {k}: {words(i + k, 40)}.</p>" for k in range(60))
        body = f"<h1>Chapter {i}</h1>{paras}"
        size += len(body)
        chapters.append((f"Chapter {i}", body))
    write_epub(path, "The Long Book", chapters)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--big":
        os.makedirs(sys.argv[2], exist_ok=True)
        big_pdf(os.path.join(sys.argv[2], "300-pages.pdf"))
        big_epub(os.path.join(sys.argv[2], "2mb.epub"))
        sys.exit(0)
    pdf_fixtures(HERE)
    docx_fixtures(HERE)
    epub_fixtures(HERE)

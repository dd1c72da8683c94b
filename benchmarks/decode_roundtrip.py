"""How often does a page in a legacy code page come back whole? Real page texts re-encoded, decoded by qatbe.

Every dev page of scrapinghub-aeb and wcxb that is valid UTF-8 is taken whole, and cut to its first 2,000 and 400
characters of text (short pages are where detection guesses); its charset declaration is removed. A page is
re-encoded into the legacy code page of its script (windows-1252 for Latin-1 letters, windows-1250 for Central
European ones, windows-1251 for Cyrillic, ISO-8859-7 for Greek, Shift_JIS for kana, GB18030 for Han), once without a
declaration and once under a false ``<meta charset="utf-8">``, and decoded with ``decode_bytes``. A page whose
text does not come back character for character counts as a miss.

    PYTHONPATH=. python benchmarks/decode_roundtrip.py [--corpora ../shared/corpora]
"""

from __future__ import annotations

import argparse
import collections
import gzip
import re
from collections.abc import Iterator
from pathlib import Path

from qatbe.segmentation.decode import decode_bytes

_META = re.compile(r"<meta[^>]+charset[^>]*>", re.IGNORECASE)
_CENTRAL = set("ąćęłńśźżčďěňřšťůžőűĄĆĘŁŃŚŹŻČĎĚŇŘŠŤŮŽŐŰ")


def code_page(page: str) -> str | None:
    """The legacy code page a page of this script would have been served in, or None (too few letters)."""
    letters = [c for c in page if ord(c) > 127 and c.isalpha()]
    n = len(letters)
    if n < 3:
        return None
    share = {
        "shift_jis": sum("\u3040" <= c <= "\u30ff" for c in letters) / n,
        "gb18030": sum("\u4e00" <= c <= "\u9fff" for c in letters) / n,
        "cp1251": sum("\u0400" <= c <= "\u04ff" for c in letters) / n,
        "iso8859_7": sum("\u0370" <= c <= "\u03ff" for c in letters) / n,
        "cp1250": sum(c in _CENTRAL for c in letters) / n,
        "cp1252": sum("\u00c0" <= c <= "\u00ff" for c in letters) / n,
    }
    for codec, least in (("shift_jis", 0.2), ("gb18030", 0.5), ("cp1251", 0.5), ("iso8859_7", 0.5), ("cp1250", 0.2),
                         ("cp1252", 0.8)):
        if share[codec] > least:
            return codec
    return None


def short(page: str, chars: int) -> str:
    """The first ``chars`` characters of the page's text as a minimal page."""
    body = re.sub(r"<script.*?</script>|<style.*?</style>", " ", page, flags=re.DOTALL | re.IGNORECASE)
    body = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", body)).strip()[:chars]
    return f"<html><head><title>x</title></head><body><p>{body}</p></body></html>"


def pages(corpora: Path) -> Iterator[tuple[str, str]]:
    for corpus in ("scrapinghub-aeb", "wcxb"):
        for path in sorted((corpora / corpus / "html").glob("*.gz")):
            try:
                yield f"{corpus}/{path.name}", gzip.decompress(path.read_bytes()).decode("utf-8")
            except UnicodeDecodeError:
                continue


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "corpora")
    args = parser.parse_args()
    tally: collections.Counter[tuple[str, str, str, str]] = collections.Counter()
    for _, whole in pages(args.corpora):
        for size, page in (("whole", whole), ("2000", short(whole, 2000)), ("400", short(whole, 400))):
            page = _META.sub("", page)
            codec = code_page(page)
            if codec is None:
                continue
            try:
                data = page.encode(codec)
            except UnicodeEncodeError:
                continue
            for declared in ("none", "false utf-8"):
                raw, want = data, page
                if declared != "none":
                    raw = data.replace(b"<head>", b'<head><meta charset="utf-8">', 1)
                    want = page.replace("<head>", '<head><meta charset="utf-8">', 1)
                tally[codec, size, declared, "pages"] += 1
                if decode_bytes(raw) != want:
                    tally[codec, size, declared, "misses"] += 1
    print("| code page | page | declaration | pages | misses |\n|---|---|---|--:|--:|")
    for codec, size, declared in sorted({k[:3] for k in tally}):
        print(f"| {codec} | {size} | {declared} | {tally[codec, size, declared, 'pages']} | "
              f"{tally[codec, size, declared, 'misses']} |")
    total = sum(v for k, v in tally.items() if k[3] == "pages")
    misses = sum(v for k, v in tally.items() if k[3] == "misses")
    print(f"\n{misses} of {total} pages did not come back whole")


if __name__ == "__main__":
    main()

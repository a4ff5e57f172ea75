#!/usr/bin/env python3
"""Where a built pack's data.sqlite bytes go (docs/performance.md, "Pack sizes and
delta updates").

    python3 data-packs/scripts/sqlite-layout.py tables PACK_DIR...   # bytes per table (dbstat)
    python3 data-packs/scripts/sqlite-layout.py pages PACK_DIR...    # file size after VACUUM at
                                                                     # 1, 2, 4, 8 KiB pages,
                                                                     # without the ip_ranges

Works on copies in a temporary directory; the packs are not changed.
"""
import os
import shutil
import sqlite3
import sys
import tempfile


def tables(db):
    c = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    rows = c.execute("SELECT name, sum(pgsize) s FROM dbstat GROUP BY name ORDER BY s DESC")
    for name, size in rows:
        print(f"  {name:34s}{size:>12,}")


def pages(db):
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in (1024, 2048, 4096, 8192):
            copy = os.path.join(tmp, "data.sqlite")
            shutil.copy(db, copy)
            c = sqlite3.connect(copy)
            c.execute(f"PRAGMA page_size = {size}")
            c.execute("VACUUM")
            ip = c.execute(
                "SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name LIKE 'ip_ranges%'"
            ).fetchone()[0]
            c.close()
            out.append(f"{size // 1024} KiB {(os.path.getsize(copy) - ip) / 1e6:.3f} MB")
    print("  " + ", ".join(out))


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("tables", "pages"):
        sys.exit(__doc__)
    for pack in sys.argv[2:]:
        print(pack)
        (tables if sys.argv[1] == "tables" else pages)(os.path.join(pack, "data.sqlite"))


main()

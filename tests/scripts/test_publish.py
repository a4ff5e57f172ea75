#!/usr/bin/env python3
"""Publishing on Dask's local mode (data-packs/publish/publish.py), end to end.

Monaco is cut into three regions and published as version 1 on a local cluster of two worker
processes; the worker running the first attempt of one region is killed (SIGKILL) in the
middle of its build. The job must be retried on a fresh worker and the index must list all
three regions, each a pack that verifies against the publisher's key. Version 2 is then
published with a delta from version 1 for every region, and a batch with one region whose
extract is missing must fail without touching the index.

    python3 tests/scripts/test_publish.py BIN_DIR     (BIN_DIR holds waymark and waymark-packs)
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "data-packs" / "publish"))
import publish  # noqa: E402

EXTRACT = (ROOT / ".." / "shared" / "data" / "osm" / "monaco.osm.pbf").resolve()
# Monaco cut along two meridians; ways crossing a cut are kept whole in both parts.
CUTS = {
    "monaco-west": "43.72,7.40,43.76,7.415",
    "monaco-middle": "43.72,7.415,43.76,7.43",
    "monaco-east": "43.72,7.43,43.76,7.45",
}
KILLED = "monaco-middle"


def fail(msg: str) -> None:
    print(f"FAIL: {msg}")
    sys.exit(1)


def regions_file(tmp: Path, extract: Path) -> Path:
    regions = [
        {"id": rid, "extract": str(extract), "bbox": bbox, "memory_gb": 1,
         "build_args": ["--layers", "roads,routing"]}
        for rid, bbox in CUTS.items()
    ]
    path = tmp / f"regions-{extract.stem}.json"
    path.write_text(json.dumps(regions))
    return path


def building(rid: str) -> bool:
    """Whether a `waymark-packs build` of region `rid` is running."""
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            args = cmdline.read_bytes().split(b"\0")
        except OSError:
            continue
        if b"build" in args and rid.encode() in args:
            return True
    return False


def kill_first_attempt(out: Path, stop: threading.Event, killed: list) -> None:
    """Kills the worker of the first attempt of KILLED while its build runs."""
    attempts = out / publish.ATTEMPTS
    while not stop.is_set():
        files = sorted(attempts.glob(f"{KILLED}.*.pid")) if attempts.exists() else []
        if files and building(KILLED):
            pid = int(files[0].read_text())
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
            return
        time.sleep(0.005)


def verify(binary: Path, trust: str, pack: Path) -> None:
    p = subprocess.run([str(binary), "verify", "--trust", trust, str(pack)],
                       capture_output=True, text=True)
    if p.returncode != 0:
        fail(f"{pack.name} does not verify: {p.stderr.strip()}")


def main() -> int:
    bin_dir = Path(sys.argv[1]).resolve()
    packs_bin = bin_dir / "waymark-packs"
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        publisher = tmp / "publisher.json"
        keys = subprocess.run([str(bin_dir / "waymark"), "keys", "new-publisher", "--out",
                               str(publisher)], capture_output=True, text=True, check=True)
        trust = keys.stdout.split("--trust", 1)[1].split()[0]
        out = tmp / "published"
        regions = publish.load_regions(regions_file(tmp, EXTRACT))
        client = publish.local_client(2, 2.0)
        try:
            # Version 1, with a worker killed in the middle of a build.
            stop, killed = threading.Event(), []
            watcher = threading.Thread(target=kill_first_attempt, args=(out, stop, killed))
            watcher.start()
            try:
                index = publish.publish(client, regions, "1", out, publisher, packs_bin)
            finally:
                stop.set()
                watcher.join()
            if not killed:
                fail(f"no attempt of {KILLED} was seen, so no worker was killed")
            tries = list((out / publish.ATTEMPTS).glob(f"{KILLED}.*.pid"))
            if len(tries) < 2:
                fail(f"{KILLED} ran {len(tries)} time(s) after its worker was killed")
            ids = [p["id"] for p in index["packs"]]
            if ids != sorted(CUTS):
                fail(f"index lists {ids}, expected {sorted(CUTS)}")
            on_disk = json.loads((out / publish.INDEX).read_text())
            if on_disk != index:
                fail("index.json differs from the published index")
            for p in index["packs"]:
                pack = out / p["dir"]
                verify(packs_bin, trust, pack)
                if publish.sha256_of(pack / "manifest.json") != p["manifest_sha256"]:
                    fail(f"{p['dir']}: manifest hash differs from the index")
            print(f"version 1: 3 regions published; {KILLED}'s worker (pid {killed[0]}) killed "
                  f"mid-build, {len(tries)} attempts")

            # Version 2: a delta from version 1 for every region.
            index2 = publish.publish(client, regions, "2", out, publisher, packs_bin)
            for p in index2["packs"]:
                if p["deltas_from"] != ["1"]:
                    fail(f"{p['dir']}: deltas from {p['deltas_from']}, expected ['1']")
                if not list((out / p["dir"]).rglob("1/delta.json")):
                    fail(f"{p['dir']}: no delta manifest from version 1")
                verify(packs_bin, trust, out / p["dir"])
            print("version 2: 3 regions published with deltas from version 1")

            # A batch with a failing region writes no index.
            before = (out / publish.INDEX).read_bytes()
            broken = publish.load_regions(regions_file(tmp, tmp / "missing.osm.pbf"))
            broken = [regions[0] | {"id": "monaco-west"}] + broken[1:]
            try:
                publish.publish(client, broken, "3", out, publisher, packs_bin, retries=0)
                fail("a batch with a missing extract was published")
            except RuntimeError as e:
                if "no index written" not in str(e):
                    fail(f"unexpected failure: {e}")
            if (out / publish.INDEX).read_bytes() != before:
                fail("a failed batch changed the index")
            print("a failed batch left the index of version 2 in place")
        finally:
            client.close()
    print("publish: PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Publish a set of regions as signed packs, one Dask job per region.

Each job cuts and builds its region from its extract (`waymark-packs build --bbox/--polygon`),
signs it, makes the delta from the last published version of that region when there is one
(`waymark-packs delta`), and moves the result into the published tree. The jobs run on Dask
distributed: in its local mode on one machine (`--local-workers N`), or unchanged on a cluster
(`--scheduler tcp://HOST:8786`, workers started with `dask worker --resources MEMORY=<bytes>`).
Each job asks for the memory its region declares (a Dask resource, so a worker runs only the
jobs its memory holds at once) and is retried when it fails or its worker dies. The index of
the published tree is written only when every region succeeded, and atomically.

Regions file (JSON): a list of objects
    {"id": "andorra-north", "extract": "path/to/file.osm.pbf",
     "bbox": "S,W,N,E" | "polygon": "path/to/polygon.geojson",
     "memory_gb": 2, "build_args": ["--layers", "roads,routing"]}
Relative paths are relative to the regions file.

Published tree (`--out`):
    <id>-<version>/           the signed pack, with deltas/ from earlier versions
    index.json                {"version": ..., "packs": [{"id", "version", "dir", "bytes",
                               "manifest_sha256", "deltas_from"}]}

Usage:
    python3 data-packs/publish/publish.py --regions regions.json --version 2 --out DIR \\
        --publisher publisher.json --bin target/release/waymark-packs [--local-workers 2]
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

INDEX = "index.json"
STAGING = ".staging"
ATTEMPTS = ".attempts"


def load_regions(path: Path) -> list[dict]:
    """The regions of `path`, with paths made absolute; refuses an ill-formed file by name."""
    regions = json.loads(path.read_text())
    if not isinstance(regions, list) or not regions:
        raise ValueError(f"{path}: expected a non-empty JSON list of regions")
    seen = set()
    for r in regions:
        rid = r.get("id")
        if not rid or not isinstance(rid, str):
            raise ValueError(f"{path}: a region has no id")
        if rid in seen:
            raise ValueError(f"{path}: region {rid} is listed twice")
        seen.add(rid)
        if ("bbox" in r) == ("polygon" in r):
            raise ValueError(f"{path}: region {rid} needs exactly one of bbox and polygon")
        for key in ("extract", "polygon"):
            if key in r:
                r[key] = str((path.parent / r[key]).resolve())
    return regions


def read_index(out: Path) -> dict:
    p = out / INDEX
    return json.loads(p.read_text()) if p.exists() else {"packs": []}


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def dir_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def publish_region(region: dict, version: str, out: str, publisher: str, binary: str,
                   previous: str | None) -> dict:
    """One job: build, sign and delta one region into the published tree. Runs on a worker;
    every attempt works in a staging directory of its own, so a killed attempt leaves nothing
    another attempt reads."""
    out_p = Path(out)
    rid = region["id"]
    attempts = out_p / ATTEMPTS
    attempts.mkdir(parents=True, exist_ok=True)
    # Which worker process runs which attempt: for operators (and the fault test).
    (attempts / f"{rid}.{uuid.uuid4().hex}.pid").write_text(str(os.getpid()))
    staging = out_p / STAGING / f"{rid}-{version}-{uuid.uuid4().hex}"
    staging.mkdir(parents=True)
    cmd = [binary, "build", "--pack", rid, "--extract", region["extract"],
           "--version", version, "--out", str(staging), "--publisher", publisher, "--force"]
    if "bbox" in region:
        cmd += ["--bbox", region["bbox"]]
    else:
        cmd += ["--polygon", region["polygon"]]
    cmd += list(region.get("build_args", []))
    run(cmd, f"{rid}: build")
    built = staging / f"{rid}-{version}"
    if not (built / "manifest.json").exists():
        raise RuntimeError(f"{rid}: the build wrote no manifest in {built}")
    deltas_from = []
    if previous and previous != version:
        old = out_p / f"{rid}-{previous}"
        if (old / "manifest.json").exists():
            run([binary, "delta", str(old), str(built), "--publisher", publisher],
                f"{rid}: delta from {previous}")
            deltas_from.append(previous)
    final = out_p / f"{rid}-{version}"
    if final.exists():
        # An earlier attempt of this job got this far before its worker was lost.
        shutil.rmtree(final)
    os.replace(built, final)
    shutil.rmtree(staging, ignore_errors=True)
    return {
        "id": rid,
        "version": version,
        "dir": final.name,
        "bytes": dir_bytes(final),
        "manifest_sha256": sha256_of(final / "manifest.json"),
        "deltas_from": deltas_from,
    }


def run(cmd: list[str], what: str) -> None:
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        tail = "\n".join((p.stderr or p.stdout).strip().splitlines()[-5:])
        raise RuntimeError(f"{what} failed (exit {p.returncode}): {tail}")


def publish(client, regions: list[dict], version: str, out: Path, publisher: Path,
            binary: Path, retries: int = 2) -> dict:
    """Runs one job per region on `client` (a `distributed.Client`); writes the index and
    returns it when every job succeeded, raises (and writes no index) otherwise."""
    from distributed import as_completed

    out.mkdir(parents=True, exist_ok=True)
    previous = {p["id"]: p["version"] for p in read_index(out).get("packs", [])}
    futures = {}
    for r in regions:
        gb = float(r.get("memory_gb", 1))
        fut = client.submit(
            publish_region, r, version, str(out.resolve()), str(publisher.resolve()),
            str(binary.resolve()), previous.get(r["id"]),
            key=f"publish-{r['id']}-{version}", retries=retries, pure=False,
            resources={"MEMORY": gb * 1e9},
        )
        futures[fut] = r["id"]
    done, failed = [], []
    for fut in as_completed(list(futures)):
        try:
            done.append(fut.result())
        except Exception as e:  # noqa: BLE001 (reported by region, then the run fails)
            failed.append(f"{futures[fut]}: {e}")
    if failed:
        raise RuntimeError("not published (no index written): " + "; ".join(sorted(failed)))
    index = {"version": version, "packs": sorted(done, key=lambda p: p["id"])}
    tmp = out / f"{INDEX}.tmp"
    tmp.write_text(json.dumps(index, indent=2) + "\n")
    os.replace(tmp, out / INDEX)
    shutil.rmtree(out / STAGING, ignore_errors=True)
    return index


def local_client(workers: int, memory_gb: float):
    """A Dask cluster on this machine: `workers` processes of one thread, each offering
    `memory_gb` of the MEMORY resource, restarted by their nanny when they die."""
    from distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                           resources={"MEMORY": memory_gb * 1e9}, dashboard_address=None)
    return Client(cluster)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--regions", required=True, type=Path)
    ap.add_argument("--version", required=True)
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--publisher", required=True, type=Path)
    ap.add_argument("--bin", required=True, type=Path, help="the waymark-packs binary")
    ap.add_argument("--scheduler", help="address of a running Dask scheduler")
    ap.add_argument("--local-workers", type=int, default=2)
    ap.add_argument("--worker-memory-gb", type=float, default=8.0)
    ap.add_argument("--retries", type=int, default=2)
    a = ap.parse_args()
    try:
        regions = load_regions(a.regions)
    except (ValueError, OSError) as e:
        print(f"publish: {e}", file=sys.stderr)
        return 2
    if a.scheduler:
        from distributed import Client

        client = Client(a.scheduler)
    else:
        client = local_client(a.local_workers, a.worker_memory_gb)
    try:
        index = publish(client, regions, a.version, a.out, a.publisher, a.bin, a.retries)
    except RuntimeError as e:
        print(f"publish: {e}", file=sys.stderr)
        return 1
    finally:
        client.close()
    for p in index["packs"]:
        print(f"{p['dir']}\t{p['bytes']} bytes\tdeltas from {p['deltas_from'] or '-'}")
    print(f"index: {a.out / INDEX} ({len(index['packs'])} regions)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Fuzzes the local server against its own OpenAPI document with Schemathesis.

Starts the debug `waymark` server on 127.0.0.1 (a free port) over the packs of the Kotlin
suite's fixture (`sdk-fixture`: the Andorra sample pack with its venue, the Monaco routing
packs and the world IP pack, signed by a new publisher), creates the resources whose ids the
paths need (a dataset with its features, a matrix job; the sample venue is in the pack), and
runs Schemathesis on every operation of `/openapi.json` with a private key that may write,
sent as `private_key` (the one form every key set accepts). Pack sources given as http(s) URLs
are pointed at a missing local directory, so the run never reaches the network. Path ids are those of the
resources above; requests that delete or overwrite them (`DELETE /datasets/{id}`,
`PUT /datasets/{id}`) and `DELETE /packs/{id}` keep the generated ids, so the run cannot remove
what later requests read.

Checks: no 5xx but the documented 501/503 (`not_a_server_error`), every status is documented
(`status_code_conformance`), every body matches its schema (`response_schema_conformance`),
and its content type (`content_type_conformance`), documented headers are sent
(`response_headers_conformance`), and methods a path lacks answer 405 with an `Allow` header
(`unsupported_method`). Fixed seed, bounded examples: the same run every time.

Usage: fuzz-openapi.py TARGET_DEBUG_DIR [--long]
  TARGET_DEBUG_DIR  holds `waymark` and `sdk-fixture` (the workspace's debug build)
  --long            many more examples per operation (minutes; not part of the test command)
"""
import json
import os
import pathlib
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

SEED = 20261129
SHORT_EXAMPLES = 15
LONG_EXAMPLES = 400
CHECKS = ",".join([
    "not_a_server_error",
    "status_code_conformance",
    "response_schema_conformance",
    "content_type_conformance",
    "response_headers_conformance",
    "unsupported_method",
])
# The venue of the sample pack (tests/golden/parity/indoor-venue.json).
VENUE = "imdf-venue-1"

HOOKS = '''
import os
import schemathesis

KEY = os.environ["WAYMARK_FUZZ_KEY"]
OFFLINE_SOURCE = os.environ["WAYMARK_FUZZ_OFFLINE_SOURCE"]
IDS = {k: v for k, v in (p.split("=", 1) for p in os.environ["WAYMARK_FUZZ_IDS"].split(";") if p)}
# Requests that would delete or overwrite the resources the others read keep generated ids.
KEEP_GENERATED = {("DELETE", "/datasets/{dataset_id}"), ("PUT", "/datasets/{dataset_id}"),
                  ("DELETE", "/packs/{pack_id}")}


def offline(url):
    """A pack source that is an http(s) URL points into the run's directory instead: the run
    never reaches the network (the sources that are not URLs still reach the server)."""
    if isinstance(url, str) and url.lower().startswith(("http://", "https://")):
        return OFFLINE_SOURCE
    return url


@schemathesis.hook
def before_call(ctx, case, **kwargs):
    query = dict(case.query or {})
    query.pop("key", None)
    query["private_key"] = KEY
    if "source" in query:
        query["source"] = offline(query["source"])
    case.query = query
    if case.headers:
        case.headers = {k: v for k, v in case.headers.items() if k.lower() != "x-api-key"}
    if isinstance(case.body, dict) and "url" in case.body:
        case.body = dict(case.body, url=offline(case.body["url"]))
    if case.path_parameters and (case.method.upper(), case.path) == ("DELETE", "/packs/{pack_id}"):
        # Never an installed pack, even when a link of an earlier answer names one: removing
        # the packs would leave every later request without data (a documented 503).
        params = dict(case.path_parameters)
        params["pack_id"] = "not-installed-" + str(params.get("pack_id", ""))
        case.path_parameters = params
    elif case.path_parameters and (case.method.upper(), case.path) not in KEEP_GENERATED:
        params = dict(case.path_parameters)
        for name in params:
            if name in IDS:
                params[name] = IDS[name]
        case.path_parameters = params
'''


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def call(base, method, path, key, body=None):
    sep = "&" if "?" in path else "?"
    req = urllib.request.Request(
        f"{base}{path}{sep}private_key={key}",
        method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


def wait_for(what, predicate, timeout=120):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return
        time.sleep(0.5)
    raise SystemExit(f"fuzz: {what} not ready after {timeout} s")


def resources(base, key, work):
    """Creates a dataset (imported, with features) and a matrix job; returns the path ids."""
    geojson = work / "points.geojson"
    geojson.write_text(json.dumps({"type": "FeatureCollection", "features": [
        {"type": "Feature", "properties": {"name": "a", "height": 3},
         "geometry": {"type": "Point", "coordinates": [1.5218, 42.5063]}},
        {"type": "Feature", "properties": {"name": "b", "height": 5},
         "geometry": {"type": "Polygon", "coordinates": [[[1.52, 42.50], [1.53, 42.50],
                                                          [1.53, 42.51], [1.52, 42.50]]]}},
    ]}))
    status, created = call(base, "POST", "/datasets", key,
                           {"name": "fuzz", "url": geojson.resolve().as_uri()})
    if status != 202:
        raise SystemExit(f"fuzz: creating the dataset answered {status} {created}")
    dataset = created["id"]

    def imported():
        status, body = call(base, "GET", f"/datasets/{dataset}/status", key)
        if status == 200 and body.get("status") == "failed":
            raise SystemExit(f"fuzz: the dataset import failed: {body}")
        return status == 200 and body.get("status") == "success"

    wait_for("the dataset import", imported)
    status, found = call(base, "POST", f"/datasets/{dataset}/features/search", key,
                         {"where": "name:a"})
    features = found.get("features", []) if status == 200 else []
    if not features:
        raise SystemExit(f"fuzz: the dataset has no feature `a`: {status} {found}")
    status, job = call(base, "POST", "/distance/matrix/async", key,
                       {"origins": "42.5078,1.5211", "destinations": "42.5346,1.5806"})
    if status != 200:
        raise SystemExit(f"fuzz: creating the matrix job answered {status} {job}")
    return {
        "dataset_id": dataset,
        "feature_id": features[0]["id"],
        "matrix_id": job["matrix_id"],
        "venue_id": VENUE,
    }


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    debug = pathlib.Path(sys.argv[1]).resolve()
    examples = LONG_EXAMPLES if "--long" in sys.argv[2:] else SHORT_EXAMPLES
    started = time.time()
    work = pathlib.Path(tempfile.mkdtemp(prefix="waymark-fuzz-"))
    server = None
    keep = os.environ.get("WAYMARK_FUZZ_KEEP") is not None
    try:
        fixture_dir = work / "fixture"
        subprocess.run([str(debug / "sdk-fixture"), "--out", str(fixture_dir)], check=True,
                       stdout=subprocess.DEVNULL)
        fixture = json.loads((fixture_dir / "fixture.json").read_text())
        key = fixture["keys"]["private_write"]
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        log = open(work / "server.log", "w")
        server = subprocess.Popen(
            [str(debug / "waymark"), "serve", "--port", str(port), "--trust", fixture["publisher"],
             "--packs", fixture["packs_dir"], "--state-dir", str(work / "state"),
             "--rate-limits", "off"],
            stdout=log, stderr=subprocess.STDOUT)

        def up():
            if server.poll() is not None:
                raise SystemExit(f"fuzz: the server exited: {(work / 'server.log').read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{base}/openapi.json", timeout=5) as r:
                    return r.status == 200
            except OSError:
                return False

        wait_for("the server", up)
        ids = resources(base, key, work)
        hooks_dir = work / "hooks"
        hooks_dir.mkdir()
        (hooks_dir / "waymark_fuzz_hooks.py").write_text(HOOKS)
        env = dict(os.environ,
                   SCHEMATHESIS_HOOKS="waymark_fuzz_hooks",
                   PYTHONPATH=f"{hooks_dir}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
                   WAYMARK_FUZZ_KEY=key,
                   WAYMARK_FUZZ_OFFLINE_SOURCE=(work / "no-such-pack").resolve().as_uri(),
                   WAYMARK_FUZZ_IDS=";".join(f"{k}={v}" for k, v in ids.items()))
        cmd = [
            sys.executable, "-m", "schemathesis.cli", "run", f"{base}/openapi.json",
            "--checks", CHECKS,
            "--max-examples", str(examples),
            "--seed", str(SEED),
            "--generation-deterministic",
            "--generation-with-security-parameters", "false",
            "--workers", "1",
            "--phases", "examples,coverage,fuzzing",
            "--request-timeout", "60",
            "--no-color",
        ]
        print(f"fuzz: schemathesis run {base}/openapi.json ({examples} examples per operation, "
              f"seed {SEED})",
              flush=True)
        result = subprocess.run(cmd, env=env, cwd=work)
        elapsed = time.time() - started
        if result.returncode != 0:
            print(f"fuzz: FAIL (schemathesis exit {result.returncode}, {elapsed:.0f} s); "
                  f"server log: {work / 'server.log'}")
            keep = True
            sys.exit(1)
        print(f"fuzz: PASS ({elapsed:.0f} s)")
    finally:
        if server is not None:
            server.terminate()
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()
        if not keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

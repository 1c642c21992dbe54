#!/usr/bin/env python3
"""Ingests a farm served by `benches/ingest.rs --serve-only` with Miniflux, for the side-by-side
figures of docs/performance.md. Reports articles/s, CPU ms per article (Miniflux; + the
PostgreSQL backends of its database) and Miniflux's peak RSS, in the bench's output format.

    cargo bench --bench ingest -- --serve-only /tmp/farm.opml --feeds 100 --articles 20 \\
        --pages ../shared/bench/scrapinghub/html &
    python3 benches/miniflux_side_by_side.py --miniflux ../.miniflux/miniflux \\
        --opml /tmp/farm.opml --expect 2000

Everything runs on 127.0.0.1. Miniflux is built by ../shared/bench/miniflux/build.sh.
"""

import argparse
import base64
import json
import os
import subprocess
import sys
import time
import urllib.request

USER_HZ = 100


def cpu_seconds(pid):
    """User + system CPU seconds of a process, from /proc/PID/stat."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / USER_HZ
    except (OSError, IndexError, ValueError):
        return 0.0


def peak_rss_mib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


def psql(admin, sql, database="postgres"):
    out = subprocess.run(
        ["psql", "-h", "127.0.0.1", "-U", admin, "-d", database, "-tAc", sql],
        check=True,
        capture_output=True,
        text=True,
    )
    return out.stdout.strip()


def server_cpu(admin, database):
    pids = psql(admin, f"SELECT pid FROM pg_stat_activity WHERE datname = '{database}'")
    return sum(cpu_seconds(int(p)) for p in pids.split() if p.strip())


class Api:
    def __init__(self, base, user, password):
        self.base = base
        token = base64.b64encode(f"{user}:{password}".encode()).decode()
        self.headers = {"Authorization": f"Basic {token}"}

    def call(self, method, path, body=None, raw=False):
        data = body if raw else (json.dumps(body).encode() if body is not None else None)
        request = urllib.request.Request(
            self.base + path, data=data, method=method, headers=self.headers
        )
        with urllib.request.urlopen(request, timeout=60) as response:
            text = response.read()
        return json.loads(text) if text and not raw else text


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--miniflux", required=True)
    parser.add_argument("--opml", required=True)
    parser.add_argument("--expect", type=int, required=True, help="articles in the farm")
    parser.add_argument("--workers", type=int, default=16)
    parser.add_argument("--port", type=int, default=8090)
    parser.add_argument("--pg-user", default="postgres")
    parser.add_argument("--timeout", type=float, default=600)
    args = parser.parse_args()

    database = f"miniflux_bench_{os.getpid()}"
    psql(args.pg_user, f"CREATE DATABASE {database}")
    env = dict(
        os.environ,
        DATABASE_URL=f"postgres://{args.pg_user}@127.0.0.1/{database}?sslmode=disable",
        RUN_MIGRATIONS="1",
        CREATE_ADMIN="1",
        ADMIN_USERNAME="admin",
        ADMIN_PASSWORD="adminpass",
        LISTEN_ADDR=f"127.0.0.1:{args.port}",
        WORKER_POOL_SIZE=str(args.workers),
        POLLING_PARSING_ERROR_LIMIT="0",
        POLLING_FREQUENCY="1440",
        DATABASE_MIN_CONNS=str(args.workers),
        DATABASE_MAX_CONNS=str(args.workers),
        LOG_LEVEL="error",
    )
    process = subprocess.Popen([args.miniflux], env=env, stdout=subprocess.DEVNULL)
    try:
        api = Api(f"http://127.0.0.1:{args.port}", "admin", "adminpass")
        for _ in range(100):
            try:
                urllib.request.urlopen(f"{api.base}/healthcheck", timeout=2).read()
                break
            except OSError:
                time.sleep(0.2)
        with open(args.opml, "rb") as opml:
            api.call("POST", "/v1/import", opml.read(), raw=True)
        for feed in api.call("GET", "/v1/feeds"):
            api.call("PUT", f"/v1/feeds/{feed['id']}", {"crawler": True})

        cpu_before = cpu_seconds(process.pid)
        server_before = server_cpu(args.pg_user, database)
        started = time.monotonic()
        api.call("PUT", "/v1/feeds/refresh")
        stored, last_change, last_count = 0, time.monotonic(), -1
        while stored < args.expect and time.monotonic() - started < args.timeout:
            time.sleep(0.25)
            stored = int(psql(args.pg_user, "SELECT count(*) FROM entries", database))
            if stored != last_count:
                last_count, last_change = stored, time.monotonic()
            elif time.monotonic() - last_change > 30:
                break
        elapsed = last_change - started
        cpu = cpu_seconds(process.pid) - cpu_before
        server = server_cpu(args.pg_user, database) - server_before
        per = max(stored, 1)
        print(
            f"reader=miniflux backend=postgres workers={args.workers} stored={stored} "
            f"elapsed_s={elapsed:.2f} articles_per_s={stored / max(elapsed, 1e-9):.1f} "
            f"cpu_ms_per_article={cpu * 1000 / per:.2f} "
            f"server_cpu_ms_per_article={server * 1000 / per:.2f} "
            f"total_cpu_ms_per_article={(cpu + server) * 1000 / per:.2f} "
            f"peak_rss_mib={peak_rss_mib(process.pid):.1f}"
        )
    finally:
        process.terminate()
        process.wait(timeout=30)
        psql(args.pg_user, f"DROP DATABASE IF EXISTS {database}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Times `iolens advise` over the whole catalogue of volume types (no --provider filter), for a
few workloads: every type is right-sized and every candidate simulated in virtual time.
Goal: under 5 s each on the development machine. A benchmark, not a test: nothing asserts.

Usage: bench/advise.py [--rounds N] [--out FILE]
Needs: a release build of iolens (cargo build --release).
"""

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IOLENS = os.path.join(ROOT, "target", "release", "iolens")
FIXTURE = os.path.join(ROOT, "crates", "suite", "tests-data", "advise", "loop-throttle-60s.fio.json")

DB = ["--name=db", "--ioengine=libaio", "--rw=randread", "--bs=16k", "--iodepth=32", "--size=100g"]
WORKLOADS = [
    ("20k IOPS of 16 KiB, p99 < 1 ms", ["--iops", "20k", "--p99", "1ms"] + DB),
    ("100k IOPS of 4 KiB, p99 < 1 ms",
     ["--iops", "100k", "--p99", "1ms", "--name=db", "--ioengine=libaio", "--rw=randread",
      "--bs=4k", "--iodepth=128", "--size=100g"]),
    ("400 MiB/s of 1 MiB reads",
     ["--throughput", "400m", "--name=scan", "--ioengine=libaio", "--rw=read", "--bs=1m",
      "--iodepth=16", "--size=2t"]),
    ("psync x4, 20k IOPS (none fits)",
     ["--iops", "20k", "--name=p", "--ioengine=psync", "--rw=randread", "--bs=16k",
      "--numjobs=4", "--size=10g"]),
    ("a real 60 s fio result", ["--result", FIXTURE]),
    ("a bursty 5 s trace (13,250 I/Os), p99 < 4 ms", ["--trace", "@BURSTY@", "--p99", "4ms"]),
]


def bursty_trace(path):
    """5 s of 8 KiB random reads every 400 us, with a 100 ms burst at 10,000 IOPS at 2 s (the
    advise corpus's bursty trace)."""
    at = sorted([200 + 400 * k for k in range(12500) if not 2000000 <= 200 + 400 * k < 2100000]
                + [2000000 + 100 * m for m in range(1000)])
    with open(path, "w") as f:
        f.write("fio version 3 iolog\n0 /dev/sdq add\n0 /dev/sdq open\n")
        for i, t in enumerate(at):
            f.write(f"{t} /dev/sdq read {(i * 7919 % len(at)) * 8192} 8192\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out")
    a = ap.parse_args()
    if not os.path.exists(IOLENS):
        sys.exit(f"{IOLENS} is missing: cargo build --release")
    tmp = tempfile.mkdtemp(prefix="iolens-bench-advise-")
    trace = os.path.join(tmp, "bursty.iolog")
    bursty_trace(trace)
    rows = []
    for name, args in WORKLOADS:
        args = [trace if a == "@BURSTY@" else a for a in args]
        walls = []
        for _ in range(a.rounds):
            t = time.monotonic()
            p = subprocess.run([IOLENS, "advise"] + args, cwd=ROOT, capture_output=True, text=True)
            walls.append(time.monotonic() - t)
            if p.returncode not in (0, 1):
                sys.exit(f"advise {args}: exit {p.returncode}: {p.stderr}")
        j = subprocess.run([IOLENS, "advise", "--output-format", "json"] + args, cwd=ROOT,
                           capture_output=True, text=True)
        cands = len(json.loads(j.stdout)["entries"])
        rows.append((name, cands, statistics.median(walls), max(walls)))
    shutil.rmtree(tmp)
    head = f"advise over the whole catalogue, {a.rounds} rounds, {os.cpu_count()} CPUs, {platform.platform()}"
    lines = [head, "", "| workload | candidates simulated | median s | max s |", "|---|---:|---:|---:|"]
    lines += [f"| {n} | {c} | {m:.2f} | {x:.2f} |" for n, c, m, x in rows]
    print("\n".join(lines))
    if a.out:
        with open(a.out, "a") as f:
            f.write("\n" + time.strftime("%Y-%m-%d") + ": " + "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()

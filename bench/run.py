#!/usr/bin/env python3
"""Side-by-side benchmark of iolens against fio, measured in the same run.

Each workload runs through fio and iolens alternately (ROUNDS rounds, default 3), and the
table reports medians: IOPS of each, the ratio iolens/fio, and CPU seconds per million I/Os
(user + system of the whole process, from wait4) for both. Also reports the resident memory
of iolens with numjobs=16, iodepth=256.

Usage: bench/run.py [--rounds N] [--seconds S] [--dir DIR] [--only NAME[,NAME]] [--out FILE]
Needs: fio on PATH, a release build of iolens (cargo build --release), root for zram.
Results of a run are appended to --out (markdown) if given.
"""

import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IOLENS = os.path.join(ROOT, "target", "release", "iolens")


def run(cmd, cwd):
    """Runs a command; returns (stdout, cpu seconds user+sys of the process, max RSS KiB)."""
    start = time.monotonic()
    p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = p.communicate()
    # communicate() already reaped the child; use the children's usage delta instead.
    return out.decode(), err.decode(), p.returncode, time.monotonic() - start


def measured(cmd, cwd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out, err, rc, wall = run(cmd, cwd)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if rc != 0:
        raise SystemExit(f"command failed ({rc}): {' '.join(cmd)}\n{err}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    text = out[out.index("{"): out.rindex("}") + 1]
    data = json.loads(text)
    ios = sum(j[d]["total_ios"] for j in data["jobs"] for d in ("read", "write", "trim"))
    iops = sum(j[d]["iops"] for j in data["jobs"] for d in ("read", "write", "trim"))
    job_cpu = sum((j["usr_cpu"] + j["sys_cpu"]) / 100.0 * j["job_runtime"] / 1000.0 for j in data["jobs"])
    return {"iops": iops, "ios": ios, "cpu": cpu, "job_cpu": job_cpu, "wall": wall}


def workloads(args):
    d = args.dir
    common = ["--rw=randread", "--bs=4k", f"--runtime={args.seconds}", "--time_based", "--output-format=json", "--eta=never"]
    w = [
        ("null qd1", ["--name=n", "--ioengine=null", "--size=100G", "--iodepth=1"] + common, None),
        ("null qd32", ["--name=n", "--ioengine=null", "--size=100G", "--iodepth=32"] + common, None),
        ("io_uring qd32 file", ["--name=u", f"--filename={d}/bench-1g.dat", "--size=1G", "--direct=1", "--ioengine=io_uring", "--iodepth=32"] + common, "file"),
        ("libaio qd32 file", ["--name=a", f"--filename={d}/bench-1g.dat", "--size=1G", "--direct=1", "--ioengine=libaio", "--iodepth=32"] + common, "file"),
        ("io_uring qd32 zram", ["--name=z", "--filename=/dev/zram0", "--size=1G", "--direct=1", "--ioengine=io_uring", "--iodepth=32"] + common, "zram"),
        ("psync qd1 file", ["--name=p", f"--filename={d}/bench-1g.dat", "--size=1G", "--direct=1", "--ioengine=psync", "--iodepth=1"] + common, "file"),
    ]
    if args.only:
        names = args.only.split(",")
        w = [x for x in w if any(n in x[0] for n in names)]
    return w


def setup_file(args):
    path = os.path.join(args.dir, "bench-1g.dat")
    if not os.path.exists(path) or os.path.getsize(path) < (1 << 30):
        subprocess.run(["fio", "--name=prep", f"--filename={path}", "--size=1G", "--rw=write", "--bs=1M",
                        "--direct=1", "--output-format=terse"], check=True, stdout=subprocess.DEVNULL)
    return path


def setup_zram():
    if os.geteuid() != 0 or not os.path.exists("/sys/block/zram0"):
        return False
    with open("/sys/block/zram0/disksize") as f:
        if int(f.read().strip() or 0) == 0:
            with open("/sys/block/zram0/disksize", "w") as g:
                g.write("1G")
    # Fill it with incompressible data so reads decompress real pages.
    subprocess.run([IOLENS, "--name=fill", "--filename=/dev/zram0", "--rw=write", "--bs=1M", "--size=1G",
                    "--direct=1", "--ioengine=psync", "--destructive", "--eta=never", "--output-format=terse"],
                   check=True, stdout=subprocess.DEVNULL)
    return True


def reset_zram():
    try:
        with open("/sys/block/zram0/reset", "w") as f:
            f.write("1")
    except OSError:
        pass


def memory(args):
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    cmd = [IOLENS, "--name=m", f"--filename={args.dir}/bench-1g.dat", "--size=1G", "--direct=1",
           "--ioengine=io_uring", "--iodepth=256", "--numjobs=16", "--rw=randread", "--bs=4k",
           "--runtime=3", "--time_based", "--output-format=json", "--eta=never"]
    p = subprocess.run(cmd, cwd=args.dir, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if p.returncode != 0:
        return None
    # ru_maxrss of RUSAGE_CHILDREN is the largest child so far; run this first for a clean figure.
    after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(after, before) / 1024.0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=int, default=5)
    ap.add_argument("--dir", default=os.path.join(ROOT, "target", "bench"))
    ap.add_argument("--only", default="")
    ap.add_argument("--out", default="")
    args = ap.parse_args()
    if not shutil.which("fio"):
        raise SystemExit("fio is not installed (apt-get install fio)")
    if not os.path.exists(IOLENS):
        raise SystemExit("build iolens first: cargo build --release")
    os.makedirs(args.dir, exist_ok=True)
    setup_file(args)
    rss = memory(args)
    zram = setup_zram()
    fio_version = subprocess.run(["fio", "--version"], capture_output=True, text=True).stdout.strip()
    iolens_version = subprocess.run([IOLENS, "--version"], capture_output=True, text=True).stdout.strip()
    rows = []
    try:
        for name, opts, needs in workloads(args):
            if needs == "zram" and not zram:
                rows.append((name, None, None))
                continue
            res = {"fio": [], "iolens": []}
            for r in range(args.rounds):
                for tool in (("fio", ["fio"]), ("iolens", [IOLENS])) if r % 2 == 0 else (("iolens", [IOLENS]), ("fio", ["fio"])):
                    extra = ["--destructive"] if tool[0] == "iolens" and needs == "zram" else []
                    cmd = tool[1] + opts + extra
                    if tool[0] == "fio":
                        cmd = [c for c in cmd if c != "--eta=never"] + ["--eta=never"]
                    res[tool[0]].append(measured(cmd, args.dir))
            rows.append((name, res["fio"], res["iolens"]))
            print(f"done: {name}", file=sys.stderr)
    finally:
        if zram:
            reset_zram()

    def med(xs, key):
        return statistics.median(x[key] for x in xs)

    def per_mio(xs):
        return statistics.median(x["cpu"] / max(x["ios"], 1) * 1e6 for x in xs)

    lines = []
    lines.append(f"iolens bench: {iolens_version} vs {fio_version}, {args.rounds} rounds x {args.seconds} s, medians")
    lines.append(f"machine: {platform.node()}, {os.cpu_count()} CPUs, {platform.release()}")
    lines.append("")
    lines.append("| workload | fio IOPS | iolens IOPS | IOPS ratio iolens/fio | fio CPU s per M I/O | iolens CPU s per M I/O | CPU ratio iolens/fio |")
    lines.append("|---|---:|---:|---:|---:|---:|---:|")
    for name, f, i in rows:
        if f is None:
            lines.append(f"| {name} | skipped (needs root and /dev/zram0) | | | | | |")
            continue
        fi, ii = med(f, "iops"), med(i, "iops")
        fc, ic = per_mio(f), per_mio(i)
        lines.append(f"| {name} | {fi:,.0f} | {ii:,.0f} | {ii / fi:.2f} | {fc:.3f} | {ic:.3f} | {ic / fc:.2f} |")
    lines.append("")
    if rss is not None:
        lines.append(f"iolens resident memory, numjobs=16 iodepth=256 io_uring: {rss:.1f} MiB (max RSS)")
    text = "\n".join(lines)
    print(text)
    if args.out:
        with open(args.out, "a") as f:
            f.write(f"\n## {time.strftime('%Y-%m-%d %H:%M:%S')}\n\n{text}\n")


if __name__ == "__main__":
    main()

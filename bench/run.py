#!/usr/bin/env python3
"""Side-by-side benchmark of iolens against fio and fio's t/io_uring, measured in the same run.

Each workload runs through every tool in turn (ROUNDS rounds, default 3; the order rotates each
round so drift of the machine hits all of them), and the table reports medians: IOPS of each
tool, the ratio of iolens to the best of the others, and CPU seconds per million I/Os (user +
system of the whole process, all threads, from wait4) with the ratio of iolens to fio; the
ratios to fio also as their range over the rounds (each round ran both tools). Also
reports the resident memory of iolens with numjobs=16, iodepth=256.

t/io_uring is fio's own lean io_uring/aio loop (no latency statistics, no job parsing): it is
not installed with fio; build it from fio's source (`./configure && make t/io_uring`) and pass
its path with --t-io-uring or T_IO_URING. Without it that column is skipped.

Usage: bench/run.py [--rounds N] [--seconds S] [--dir DIR] [--tmpfs-dir DIR] [--only NAME[,NAME]]
                    [--t-io-uring PATH] [--out FILE] [--raw FILE]
Needs: fio on PATH, a release build of iolens (cargo build --release), root for zram.
Results of a run are appended to --out (markdown) if given.
"""

import argparse
import fcntl
import json
import os
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IOLENS = os.path.join(ROOT, "target", "release", "iolens")
TOOLS = ("fio", "t/io_uring", "iolens")


def run(cmd, cwd):
    """Runs a command; returns (stdout, stderr, exit status, wall seconds)."""
    start = time.monotonic()
    p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = p.communicate()
    return out.decode(), err.decode(), p.returncode, time.monotonic() - start


def measured(cmd, cwd):
    """Runs fio or iolens with JSON output; returns IOPS, I/Os and CPU seconds."""
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
    return {"iops": iops, "ios": ios, "cpu": cpu, "wall": wall}


def measured_t(cmd, cwd, seconds):
    """Runs t/io_uring; it prints the I/Os of each second: IOPS is their median, and the I/Os
    of the run are their mean times the runtime (it prints no total)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out, err, rc, wall = run(cmd, cwd)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if rc != 0:
        raise SystemExit(f"command failed ({rc}): {' '.join(cmd)}\n{out}{err}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    scale = {"": 1, "K": 1e3, "M": 1e6}
    per_s = [float(v) * scale[u] for v, u in re.findall(r"IOPS=([0-9.]+)([KM]?),", out)]
    if not per_s:
        raise SystemExit(f"no IOPS lines from: {' '.join(cmd)}\n{out}{err}")
    if not any(per_s):
        # A t/io_uring built where ./configure found no libaio (libaio-dev) runs -a1 as a no-op
        # and prints IOPS=0 every second: a column of zeros is no measurement.
        hint = ("\n(with -a1 it must be built with libaio-dev installed before ./configure)"
                if "-a1" in cmd else "")
        raise SystemExit(f"t/io_uring did no I/O: {' '.join(cmd)}{hint}\n{out}{err}")
    return {"iops": statistics.median(per_s), "ios": statistics.mean(per_s) * seconds, "cpu": cpu,
            "wall": wall}


# Job settings of the rows. "default" is fio's defaults (submit each I/O as it is ready, reap
# one at a time); "batched" submits 32 at once and reaps 1 to 32, with registered buffers and
# files.
BATCHED = ["--iodepth_batch_submit=32", "--iodepth_batch_complete_min=1", "--iodepth_batch_complete_max=32"]
URING_REG = ["--fixedbufs", "--registerfiles"]
T_DEFAULT = ["-d32", "-s1", "-c1", "-B0", "-F0"]
T_BATCHED = ["-d32", "-s32", "-c32", "-B1", "-F1"]


def workloads(args):
    d, shm = args.dir, args.tmpfs_dir
    common = ["--rw=randread", "--bs=4k", f"--runtime={args.seconds}", "--time_based", "--output-format=json",
              "--eta=never"]
    t_common = ["-b4096", "-p0", "-R1", f"-r{args.seconds}"]
    file = [f"--filename={d}/bench-1g.dat", "--size=1G"]
    tmp = [f"--filename={shm}/iolens-bench-1g.dat", "--size=1G"]
    zram = ["--filename=/dev/zram0", "--size=1G", "--direct=1"]
    uring, aio = ["--ioengine=io_uring", "--iodepth=32"], ["--ioengine=libaio", "--iodepth=32"]
    # (name, options of fio and iolens, what it needs, t/io_uring arguments or None)
    w = [
        ("null qd1", ["--name=n", "--ioengine=null", "--size=100G", "--iodepth=1"], None, None),
        ("null qd32", ["--name=n", "--ioengine=null", "--size=100G", "--iodepth=32"], None, None),
        ("io_uring qd32 file", ["--name=u", "--direct=1"] + file + uring, "file",
         T_DEFAULT + ["-O1", f"{d}/bench-1g.dat"]),
        ("libaio qd32 file", ["--name=a", "--direct=1"] + file + aio, "file",
         T_DEFAULT + ["-a1", "-O1", f"{d}/bench-1g.dat"]),
        ("io_uring qd32 zram empty", ["--name=z"] + zram + uring, "zram-empty",
         T_DEFAULT + ["-O1", "/dev/zram0"]),
        ("io_uring qd32 zram empty batched", ["--name=z"] + zram + uring + BATCHED + URING_REG, "zram-empty",
         T_BATCHED + ["-O1", "/dev/zram0"]),
        ("io_uring qd32 zram empty sqpoll", ["--name=z"] + zram + uring + ["--sqthread_poll"], "zram-empty", None),
        ("io_uring qd32 zram empty 2 jobs", ["--name=z"] + zram + uring + ["--numjobs=2"], "zram-empty",
         T_DEFAULT + ["-n2", "-O1", "/dev/zram0"]),
        ("libaio qd32 zram empty", ["--name=z"] + zram + aio, "zram-empty", T_DEFAULT + ["-a1", "-O1", "/dev/zram0"]),
        ("libaio qd32 zram empty batched", ["--name=z"] + zram + aio + BATCHED, "zram-empty",
         T_BATCHED + ["-B0", "-F0", "-a1", "-O1", "/dev/zram0"]),
        ("io_uring qd32 zram filled", ["--name=z"] + zram + uring, "zram-filled", T_DEFAULT + ["-O1", "/dev/zram0"]),
        ("io_uring qd32 zram filled batched", ["--name=z"] + zram + uring + BATCHED + URING_REG, "zram-filled",
         T_BATCHED + ["-O1", "/dev/zram0"]),
        ("io_uring qd32 zram filled 2 jobs", ["--name=z"] + zram + uring + ["--numjobs=2"], "zram-filled",
         T_DEFAULT + ["-n2", "-O1", "/dev/zram0"]),
        ("libaio qd32 zram filled", ["--name=z"] + zram + aio, "zram-filled", T_DEFAULT + ["-a1", "-O1", "/dev/zram0"]),
        ("io_uring qd32 tmpfs buffered", ["--name=t"] + tmp + uring, "tmpfs", T_DEFAULT + ["-O0", f"{shm}/iolens-bench-1g.dat"]),
        ("io_uring qd32 tmpfs buffered batched", ["--name=t"] + tmp + uring + BATCHED + URING_REG, "tmpfs",
         T_BATCHED + ["-O0", f"{shm}/iolens-bench-1g.dat"]),
        ("io_uring qd32 tmpfs buffered 2 jobs", ["--name=t"] + tmp + uring + ["--numjobs=2"], "tmpfs",
         T_DEFAULT + ["-n2", "-O0", f"{shm}/iolens-bench-1g.dat"]),
        ("psync qd1 file", ["--name=p", "--direct=1", "--ioengine=psync", "--iodepth=1"] + file, "file",
         ["-d1", "-S1", "-O1", f"{d}/bench-1g.dat"]),
        ("psync qd1 zram empty", ["--name=z", "--ioengine=psync", "--iodepth=1"] + zram, "zram-empty",
         ["-d1", "-S1", "-O1", "/dev/zram0"]),
        ("psync qd1 zram filled", ["--name=z", "--ioengine=psync", "--iodepth=1"] + zram, "zram-filled",
         ["-d1", "-S1", "-O1", "/dev/zram0"]),
    ]
    w = [(n, o + common, needs, (t + t_common) if t else None) for n, o, needs, t in w]
    # Rows on one zram state together: filling it takes a while.
    order = {"zram-empty": 1, "zram-filled": 2}
    w.sort(key=lambda x: order.get(x[2], 0))
    if args.only:
        names = args.only.split(",")
        w = [x for x in w if any(n in x[0] for n in names)]
    return w


def setup_file(path):
    if not os.path.exists(path) or os.path.getsize(path) < (1 << 30):
        subprocess.run(["fio", "--name=prep", f"--filename={path}", "--size=1G", "--rw=write", "--bs=1M",
                        "--output-format=terse"], check=True, stdout=subprocess.DEVNULL)
    return path


class Zram:
    """/dev/zram0 at 1 GiB, never written or filled with random data; holds the machine-wide
    lock the tests take (/tmp/iolens-lock-zram0) while in use and resets the device at the end."""

    def __init__(self):
        self.ok = os.geteuid() == 0 and os.path.exists("/sys/block/zram0")
        self.lock = None
        self.state = None

    def take(self, state):
        if not self.ok:
            return False
        if self.state == state:
            return True
        if self.lock is None:
            self.lock = open("/tmp/iolens-lock-zram0", "a")
            fcntl.flock(self.lock, fcntl.LOCK_EX)
        self.reset()
        with open("/sys/block/zram0/disksize", "w") as g:
            g.write("1G")
        if state == "filled":
            # Incompressible data, so reads decompress real pages.
            subprocess.run(["dd", "if=/dev/urandom", "of=/dev/zram0", "bs=1M", "count=1024", "oflag=direct",
                            "status=none"], check=True)
        self.state = state
        return True

    @staticmethod
    def reset():
        # The kernel's io_uring workers of a tool that just exited may hold the device a moment.
        for _ in range(20):
            try:
                with open("/sys/block/zram0/reset", "w") as f:
                    f.write("1")
                return
            except OSError:
                time.sleep(0.25)

    def release(self):
        if self.lock is not None:
            self.reset()
            self.lock.close()
            self.lock = None


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
    ap.add_argument("--tmpfs-dir", default="/dev/shm")
    ap.add_argument("--t-io-uring", default=os.environ.get("T_IO_URING", ""))
    ap.add_argument("--only", default="")
    ap.add_argument("--out", default="")
    ap.add_argument("--raw", default="", help="write every round's figures as JSON to this file")
    args = ap.parse_args()
    if not shutil.which("fio"):
        raise SystemExit("fio is not installed (apt-get install fio)")
    if not os.path.exists(IOLENS):
        raise SystemExit("build iolens first: cargo build --release")
    t_uring = args.t_io_uring if args.t_io_uring and os.access(args.t_io_uring, os.X_OK) else None
    if args.t_io_uring and not t_uring:
        print(f"t/io_uring not found at {args.t_io_uring}: its column is skipped", file=sys.stderr)
    os.makedirs(args.dir, exist_ok=True)
    rows_todo = workloads(args)
    setup_file(os.path.join(args.dir, "bench-1g.dat"))
    tmpfs_file = os.path.join(args.tmpfs_dir, "iolens-bench-1g.dat")
    if any(w[2] == "tmpfs" for w in rows_todo) and os.path.isdir(args.tmpfs_dir):
        setup_file(tmpfs_file)
    rss = memory(args)
    zram = Zram()
    fio_version = subprocess.run(["fio", "--version"], capture_output=True, text=True).stdout.strip()
    iolens_version = subprocess.run([IOLENS, "--version"], capture_output=True, text=True).stdout.strip()
    rows = []
    try:
        for name, opts, needs, t_args in rows_todo:
            if needs and needs.startswith("zram") and not zram.take(needs.split("-")[1]):
                rows.append((name, None, "needs root and /dev/zram0"))
                continue
            if needs == "tmpfs" and not os.path.exists(tmpfs_file):
                rows.append((name, None, f"needs a tmpfs at {args.tmpfs_dir}"))
                continue
            res = {t: [] for t in TOOLS}
            tools = [t for t in TOOLS if t != "t/io_uring" or (t_uring and t_args)]
            for r in range(args.rounds):
                for tool in tools[r % len(tools):] + tools[:r % len(tools)]:
                    if tool == "t/io_uring":
                        res[tool].append(measured_t([t_uring] + t_args, args.dir, args.seconds))
                        continue
                    cmd = ["fio"] + opts if tool == "fio" else [IOLENS] + opts
                    if tool == "iolens" and needs and needs.startswith("zram"):
                        cmd.append("--destructive")
                    res[tool].append(measured(cmd, args.dir))
            rows.append((name, res, None))
            print(f"done: {name}", file=sys.stderr)
    finally:
        zram.release()
        if os.path.exists(tmpfs_file):
            os.unlink(tmpfs_file)

    def med(xs, key):
        return statistics.median(x[key] for x in xs)

    def per_mio(xs):
        return statistics.median(x["cpu"] / max(x["ios"], 1) * 1e6 for x in xs)

    def rounds(res, key, f):
        """iolens over fio round by round (both ran in the same round): min-max."""
        xs = [f(i, key) / f(o, key) for i, o in zip(res["iolens"], res["fio"]) if f(o, key)]
        return f"{min(xs):.2f}-{max(xs):.2f}" if xs else "-"

    def value(x, key):
        return x["iops"] if key == "iops" else x["cpu"] / max(x["ios"], 1)

    if args.raw:
        with open(args.raw, "w") as f:
            json.dump({"load_at_end": os.getloadavg(), "rows": [
                {"name": n, "skipped": why, "rounds": res} for n, res, why in rows]}, f, indent=1)

    lines = []
    lines.append(f"iolens bench: {iolens_version} vs {fio_version} and t/io_uring"
                 f"{'' if t_uring else ' (not given: skipped)'}, {args.rounds} rounds x {args.seconds} s, medians")
    lines.append(f"machine: {platform.node()}, {os.cpu_count()} CPUs, {platform.release()}, "
                 f"load {os.getloadavg()[0]:.1f} at the end")
    lines.append("")
    lines.append("| workload | fio IOPS | t/io_uring IOPS | iolens IOPS | iolens / best | iolens / fio by round "
                 "| fio CPU s/M I/O | t/io_uring CPU s/M I/O | iolens CPU s/M I/O | iolens CPU / fio "
                 "| by round |")
    lines.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, res, why in rows:
        if res is None:
            lines.append(f"| {name} | skipped ({why}) | | | | | | | | | |")
            continue
        iops = {t: med(res[t], "iops") for t in TOOLS if res[t]}
        cpu = {t: per_mio(res[t]) for t in TOOLS if res[t]}
        best = max(v for t, v in iops.items() if t != "iolens")

        def cell(d, t, fmt):
            return fmt.format(d[t]) if t in d else "-"

        lines.append(
            f"| {name} | {cell(iops, 'fio', '{:,.0f}')} | {cell(iops, 't/io_uring', '{:,.0f}')} "
            f"| {iops['iolens']:,.0f} | {iops['iolens'] / best:.2f} | {rounds(res, 'iops', value)} "
            f"| {cell(cpu, 'fio', '{:.3f}')} | {cell(cpu, 't/io_uring', '{:.3f}')} | {cpu['iolens']:.3f} "
            f"| {cpu['iolens'] / cpu['fio']:.2f} | {rounds(res, 'cpu', value)} |")
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

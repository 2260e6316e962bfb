#!/usr/bin/env python3
"""Many small files: iolens train's data loader against fio reading the same kind of file set.

`iolens train cosmoflow` (one sample per file) over N files of --file-size bytes on tmpfs,
buffered (tmpfs has no O_DIRECT), with a step time of 1 µs so that the loader, not the
"accelerator", sets the pace; and the closest fio job: the same number of files in the same
size, `nrfiles`, `filesize`, `file_service_type=random`, `openfiles` = the readers, psync,
`numjobs` = accelerators x readers, each job its share of the files. Files are made once per
tool before the rounds (not measured). Reports, as medians over the rounds (the order of the
tools rotates each round): files per second (files read / wall seconds of the process) and CPU
microseconds per file (user + system of the whole process, from wait4).

Usage: bench/train_files.py [--files 100000] [--file-size 2828] [--accelerators 4]
                            [--rounds 3] [--dir /dev/shm] [--out FILE]
Needs: fio on PATH and a release build of iolens (cargo build --release).
"""

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IOLENS = os.path.join(ROOT, "target", "release", "iolens")
COSMOFLOW_SAMPLE = 2_828_486
READERS = 4


def measured(cmd):
    """Runs a command; returns (wall seconds, CPU seconds of it and its threads)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode not in (0, 1):
        raise SystemExit(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr.decode()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=100_000)
    ap.add_argument("--file-size", type=int, default=2828)
    ap.add_argument("--accelerators", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--dir", default="/dev/shm")
    ap.add_argument("--out")
    a = ap.parse_args()
    scale = a.file_size / COSMOFLOW_SAMPLE
    base = os.path.join(a.dir, f"iolens-train-bench-{os.getpid()}")
    ours, theirs = os.path.join(base, "iolens"), os.path.join(base, "fio")
    jobs = a.accelerators * READERS
    iolens = [
        IOLENS, "train", "cosmoflow", "--dir", ours, "--files", str(a.files),
        "--scale", f"{scale:.9f}", "--buffered", "--step-time", "1us",
        "--accelerators", str(a.accelerators), "--output-format", "json",
    ]
    fio = [
        "fio", "--name=files", f"--directory={theirs}", "--rw=read", "--ioengine=psync",
        f"--nrfiles={a.files // jobs}", f"--filesize={a.file_size}", "--bs=1m",
        "--file_service_type=random", f"--openfiles={READERS}", f"--numjobs={jobs}",
        "--thread", "--group_reporting", "--output-format=json",
    ]
    os.makedirs(ours, exist_ok=True)
    os.makedirs(theirs, exist_ok=True)
    try:
        # Make the file sets (not measured).
        subprocess.run(iolens, stdout=subprocess.DEVNULL, check=False)
        subprocess.run(fio + ["--create_only=1"], stdout=subprocess.DEVNULL, check=True)
        rows = {"iolens": [], "fio": []}
        for r in range(a.rounds):
            order = [("iolens", iolens), ("fio", fio)]
            if r % 2:
                order.reverse()
            for name, cmd in order:
                rows[name].append(measured(cmd))
        files = a.files // jobs * jobs
        lines = [
            f"{files:,} files of {a.file_size:,} B on {a.dir}, {a.accelerators} accelerators x "
            f"{READERS} readers (fio: {jobs} psync jobs), median of {a.rounds} rounds",
            "",
            "| tool | files/s | CPU µs per file |",
            "|---|---:|---:|",
        ]
        for name in ("fio", "iolens"):
            fps = statistics.median(files / w for w, _ in rows[name])
            cpu = statistics.median(1e6 * c / files for _, c in rows[name])
            lines.append(f"| {name} | {fps:,.0f} | {cpu:.1f} |")
        text = "\n".join(lines)
        print(text)
        if a.out:
            with open(a.out, "a") as f:
                f.write(f"\n## {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}\n\n{text}\n")
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()

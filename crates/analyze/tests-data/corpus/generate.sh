#!/bin/bash
# Regenerates the explain corpus: each case runs once under iolens and (where fio has the
# feature) once under fio 3.33, with the same command-line options, writing
# NAME.iolens.json and NAME.fio.json next to this script. Needs root (loop device, cgroup v1
# blkio, zram). Reads only from block devices; writes only to files under $WORK and to
# /dev/zram0 while holding /tmp/iolens-zram0.lock. Never touches /dev/vda.
#
#   IOLENS=/path/to/iolens ./generate.sh            # all cases
#   IOLENS=/path/to/iolens ./generate.sh virtio-    # only cases whose name starts so
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
IOLENS=${IOLENS:-iolens}
WORK=${WORK:-/tmp/iolens-explain-corpus}
ONLY=${1:-}
RT=5
mkdir -p "$WORK"
DATA=$WORK/data.dat

run() { # run TOOL NAME OPTIONS... ; TOOL is fio, iolens or both
  local tool=$1 name=$2; shift 2
  [[ -n $ONLY && $name != $ONLY* ]] && return 0
  for t in fio iolens; do
    [[ $tool != both && $tool != "$t" ]] && continue
    local bin=fio; [[ $t == iolens ]] && bin=$IOLENS
    echo "== $name ($t): $*" >&2
    timeout 120 "$bin" --name="$name" "$@" --output-format=json \
      >"$HERE/$name.$t.json" 2>"$WORK/$name.$t.err" || echo "   failed: $(tail -2 "$WORK/$name.$t.err")" >&2
  done
}

# A data file written once, so that reads hit real blocks.
[[ -f $DATA ]] || fio --name=prep --filename="$DATA" --size=512m --rw=write --bs=1m --direct=1 --output=/dev/null

# The virtio disk (vda, through ext4): direct random reads at several depths.
run both virtio-psync-qd1 --filename="$DATA" --size=512m --direct=1 --ioengine=psync --rw=randread --bs=4k --runtime=$RT --time_based
run both virtio-iouring-qd4 --filename="$DATA" --size=512m --direct=1 --ioengine=io_uring --iodepth=4 --rw=randread --bs=4k --runtime=$RT --time_based
run both virtio-iouring-qd32 --filename="$DATA" --size=512m --direct=1 --ioengine=io_uring --iodepth=32 --rw=randread --bs=4k --runtime=$RT --time_based
run both virtio-libaio-q32t4 --filename="$DATA" --size=512m --direct=1 --ioengine=libaio --iodepth=32 --numjobs=4 --group_reporting --rw=randread --bs=4k --runtime=$RT --time_based
run both virtio-seqread-1m-qd8 --filename="$DATA" --size=512m --direct=1 --ioengine=io_uring --iodepth=8 --rw=read --bs=1m --runtime=$RT --time_based

# Page cache against direct I/O.
cat "$DATA" >/dev/null
run both cache-buffered-read --filename="$DATA" --size=512m --direct=0 --invalidate=0 --ioengine=psync --rw=randread --bs=4k --runtime=$RT --time_based
# Buffered random reads of the data file with its cache dropped first (invalidate=1): most
# reads reach the disk at device latency. Named against a slower volume (--volume gp3 in
# expected.json), the result is above that model, which is not the page cache.
run both cache-buffered-read-cold --filename="$DATA" --size=512m --direct=0 --invalidate=1 --ioengine=psync --rw=randread --bs=4k --runtime=$RT --time_based
run both cache-buffered-write --filename="$WORK/bw.dat" --size=256m --direct=0 --ioengine=psync --rw=randwrite --bs=4k --runtime=$RT --time_based

# Flushes: seed 003's fsync=1 job and its relatives, on a file on the virtio disk.
run both fsync-iouring-fsync1 --filename="$WORK/fs.dat" --size=256m --ioengine=io_uring --rw=randwrite --bs=4k --fsync=1 --runtime=$RT --time_based
run both fsync-psync-fdatasync1 --filename="$WORK/fs.dat" --size=256m --ioengine=psync --rw=randwrite --bs=4k --fdatasync=1 --runtime=$RT --time_based
run both fsync-psync-dsync-direct --filename="$WORK/fs.dat" --size=256m --ioengine=psync --rw=randwrite --bs=4k --direct=1 --sync=dsync --runtime=$RT --time_based
run both fsync-psync-fsync32 --filename="$WORK/fs.dat" --size=256m --ioengine=psync --rw=randwrite --bs=4k --fsync=32 --runtime=$RT --time_based

# The job's own pacing.
run both rate-iops500 --filename="$DATA" --size=512m --direct=1 --ioengine=psync --rw=randread --bs=4k --rate_iops=500 --runtime=$RT --time_based
# Rates in fio's own notation (suffixes, per-direction pairs) on the null engine, which alone
# would run far faster: the rate, not the CPU, must be named.
run both rate-iops1k-null --ioengine=null --size=1g --rw=randread --bs=4k --rate_iops=1k --runtime=$RT --time_based
run both rate-iops1k500-null-randrw --ioengine=null --size=1g --rw=randrw --bs=4k --rate_iops=1k,500 --runtime=$RT --time_based
run both rate-4m-null --ioengine=null --size=1g --rw=randread --bs=4k --rate=4m --runtime=$RT --time_based
run both rate-thinktime2ms --filename="$DATA" --size=512m --direct=1 --ioengine=psync --rw=randread --bs=4k --thinktime=2ms --runtime=$RT --time_based
# A trace replayed at its recorded times: an iolog v3 of 10,000 random 4 KiB reads of the data
# file, one every 500 us (2,000 IOPS for 5 s), which the virtio disk serves with room to spare
# at QD32: the trace's times, not the storage, set the rate.
TRACE=$WORK/replay-2000.iolog
[[ -f $TRACE ]] || awk -v f="$DATA" 'BEGIN { print "fio version 3 iolog"; print 0, f, "add"; print 0, f, "open"; srand(7); for (i = 0; i < 10000; i++) print i * 500, f, "read", int(rand() * 131072) * 4096, 4096; print 5000000, f, "close" }' >"$TRACE"
run both replay-iolog3-2000-iouring-qd32 --read_iolog="$TRACE" --replay_redirect="$DATA" --direct=1 --ioengine=io_uring --iodepth=32

# CPU: the null engine does no I/O, so the submitting thread is the limit.
run both cpu-null-qd1 --ioengine=null --size=1g --rw=randread --bs=4k --runtime=$RT --time_based
run both cpu-null-qd1-1job --ioengine=null --size=1g --rw=read --bs=64k --runtime=$RT --time_based

# iolens only: null with a latency, and the simulated volume (seed 000's psync story and fix).
run iolens null-lat100us-qd1 --ioengine=null --sim_latency=100us --size=1g --rw=randread --bs=4k --runtime=$RT --time_based
run iolens null-lat100us-qd16 --ioengine=null --iodepth=16 --sim_latency=100us --size=1g --rw=randread --bs=4k --runtime=$RT --time_based
run iolens sim-io1-psync-numjobs4 --filename="$DATA" --size=512m --direct=1 --sim_volume=io1:iops=48000 --ioengine=psync --iodepth=8 --numjobs=4 --group_reporting --rw=randread --bs=16k --runtime=$RT --time_based
run iolens sim-io1-16000-libaio-qd64 --filename="$DATA" --size=512m --direct=1 --sim_volume=io1:iops=16000 --ioengine=libaio --iodepth=64 --rw=randread --bs=16k --runtime=$RT --time_based
# The same io1 at depth 256: the queue never drains, so even the fastest I/Os (p5) waited;
# explain must measure the queue against the model's latency, not against p5.
run iolens sim-io1-16000-libaio-qd256 --filename="$DATA" --size=512m --direct=1 --sim_volume=io1:iops=16000 --ioengine=libaio --iodepth=256 --rw=randread --bs=16k --runtime=$RT --time_based
# A result past the instance named for it: io2 at 30,000 IOPS, explained with --instance
# m5.large (18,750 IOPS at most): the run did not go through that instance, so the model
# finding says so and the bound stays the volume's limit (it was called saturated).
run iolens sim-io2-30000-libaio-qd64 --filename="$DATA" --size=512m --direct=1 --sim_volume=io2:iops=30000 --ioengine=libaio --iodepth=64 --rw=randread --bs=16k --runtime=$RT --time_based
# An open loop offering more than the volume's ceiling: 5,000 Poisson arrivals per second on a
# 3,000-IOPS gp3. The volume's limit holds the rate; the backlog (and latency from arrival)
# grows with the run, so less depth is no fix: the offered rate is.
run iolens sim-gp3-openloop5000-libaio-qd32 --filename="$DATA" --size=512m --direct=1 --sim_volume=gp3 --ioengine=libaio --iodepth=32 --rw=randread --bs=16k --rate_iops=5000 --rate_process=poisson --open_loop=1 --runtime=$RT --time_based
# Poisson arrivals at 2,500 IOPS with 4 slots on a 12,000-IOPS gp3: the pace is kept, but the
# arrivals wait for a free slot far longer than an I/O takes once issued: the job's concurrency
# holds each I/O, not its pace and not the volume.
run iolens sim-gp3-openloop2500-libaio-qd4 --filename="$DATA" --size=512m --direct=1 --sim_volume=gp3:iops=12000 --ioengine=libaio --iodepth=4 --rw=randread --bs=16k --rate_iops=2500 --rate_process=poisson --open_loop=1 --lat_percentiles=1 --runtime=$RT --time_based
# Poisson arrivals at 2,900 IOPS on a 3,000-IOPS gp3: the job's rate holds the result, but at
# 97 % of the ceiling its I/Os queue at the volume (clat far above the model), which the rate
# finding must say; explained with --instance m7g.medium, the run is above that instance's
# sustained caps (2,403 IOPS of 16 KiB) and within its 30-minute burst.
run iolens sim-gp3-openloop2900-libaio-qd16 --filename="$DATA" --size=512m --direct=1 --sim_volume=gp3 --ioengine=libaio --iodepth=16 --rw=randread --bs=16k --rate_iops=2900 --rate_process=poisson --open_loop=1 --runtime=$RT --time_based
# fdatasync=4 at QD8 on gp3: the job drains its queue before each flush, so at most 4 writes
# are in flight between flushes and none during one; the queue is never full, and that is the
# durability asked for, not something unknown holding I/Os back.
run iolens sim-gp3-fdatasync4-libaio-qd8 --filename="$WORK/fs.dat" --size=64m --direct=1 --sim_volume=gp3 --ioengine=libaio --iodepth=8 --rw=randwrite --bs=8k --fdatasync=4 --runtime=$RT --time_based
run iolens sim-gp3-iouring-qd32 --filename="$DATA" --size=512m --direct=1 --sim_volume=gp3 --ioengine=io_uring --iodepth=32 --rw=randread --bs=4k --runtime=$RT --time_based
# An open loop that offers more than its depth carries: 400 Poisson arrivals per second of 1 MiB
# reads on st1 (a 5 ms latency model) with 2 in flight. lat counts from each arrival, so it
# holds half a second of waiting in the job; Little's law on it would count 170 I/Os in flight.
# explain must measure the 2 slots on clat and name concurrency, not a saturated device.
run iolens sim-st1-openloop400-libaio-qd2 --filename="$DATA" --size=512m --direct=1 --sim_volume=st1:size=12288G --ioengine=libaio --iodepth=2 --rw=read --bs=1m --rate_iops=400 --open_loop=1 --rate_process=poisson --lat_percentiles=1 --runtime=$RT --time_based
# Instance (VM) caps on the simulated volume: the volume model stands in for the VM's own cap
# (the simulator models volumes, not instances), and expected.json gives explain the volume and
# instance the user would name (--volume, --instance): the instance binds, not the volume.
#   Azure Standard_D2s_v5 (10,000 IOPS bursting) with a 20,000-IOPS Premium SSD v2 disk:
run iolens instcap-azure-d2s-v5 --filename="$DATA" --size=512m --direct=1 --sim_volume=custom:iops=10000 --ioengine=io_uring --iodepth=32 --rw=randread --bs=4k --runtime=$RT --time_based
#   OCI VM.Standard.E4.Flex with 2 OCPUs (2 Gbps: 240 MB/s = 3,662 x 64 KiB) with a 1 TB Higher Performance volume:
run iolens instcap-oci-e4flex2 --filename="$DATA" --size=512m --direct=1 --sim_volume=custom:iops=3662 --ioengine=libaio --iodepth=16 --rw=randread --bs=64k --runtime=$RT --time_based
#   AWS m7g.large (1,250 MB/s bursting = 4,768 x 256 KiB) with a 64,000-IOPS io2 volume:
run iolens instcap-aws-m7g-large --filename="$DATA" --size=512m --direct=1 --sim_volume=custom:iops=4768 --ioengine=io_uring --iodepth=16 --rw=randread --bs=256k --runtime=$RT --time_based

# zram: a RAM block device, under its lock, reset afterwards.
if [[ -z $ONLY || zram- == $ONLY* ]]; then
  exec 9>/tmp/iolens-zram0.lock
  flock 9
  if [[ $(cat /sys/block/zram0/disksize) == 0 ]]; then
    echo 256M >/sys/block/zram0/disksize
    fio --name=zfill --filename=/dev/zram0 --rw=write --bs=1m --direct=1 --size=256m --output=/dev/null
    run both zram-psync-qd1 --filename=/dev/zram0 --size=256m --direct=1 --ioengine=psync --rw=randread --bs=4k --runtime=$RT --time_based
    run both zram-iouring-qd32 --filename=/dev/zram0 --size=256m --direct=1 --ioengine=io_uring --iodepth=32 --rw=randread --bs=4k --runtime=$RT --time_based
    echo 1 >/sys/block/zram0/reset
  else
    echo "zram0 is in use (disksize != 0): skipped" >&2
  fi
  flock -u 9
fi

# A cgroup v1 blkio throttle of 2,000 read IOPS on a loop device of our own (never 254:0).
if [[ -z $ONLY || throttle- == $ONLY* ]]; then
  exec 8>/tmp/iolens-blkio-cgroup.lock
  flock 8
  IMG=$WORK/loop.img
  fio --name=lfill --filename="$IMG" --size=256m --rw=write --bs=1m --direct=1 --output=/dev/null
  LOOP=$(losetup -f --show --direct-io=on "$IMG")
  MM=$(lsblk -dno MAJ:MIN "$LOOP" | tr -d ' ')
  CG=/sys/fs/cgroup/blkio/iolens-explain-corpus
  mkdir -p $CG
  echo "$MM 2000" >$CG/blkio.throttle.read_iops_device
  for t in fio iolens; do
    bin=fio; [[ $t == iolens ]] && bin=$IOLENS
    for c in "throttle2000-libaio-q32t4 --ioengine=libaio --iodepth=32 --numjobs=4 --group_reporting" \
             "throttle2000-iouring-qd8 --ioengine=io_uring --iodepth=8"; do
      set -- $c; name=$1; shift
      echo "== $name ($t)" >&2
      sh -c 'echo $$ > '"$CG"'/cgroup.procs; exec "$@"' sh "$bin" --name="$name" --filename="$LOOP" --direct=1 "$@" \
        --rw=randread --bs=4k --runtime=6 --time_based --output-format=json >"$HERE/$name.$t.json" 2>"$WORK/$name.$t.err" \
        || echo "   failed: $(tail -2 "$WORK/$name.$t.err")" >&2
    done
  done
  echo "$MM 0" >$CG/blkio.throttle.read_iops_device
  rmdir $CG
  losetup -d "$LOOP"
  rm -f "$IMG"
  flock -u 8
fi
# A rate that falls during the run, as when burst credits run out: the same cgroup v1 blkio
# throttle on a loop device of our own, 3,000 read IOPS for the first 2 s, then 300 (gp2's
# burst and a small volume's baseline). The kernel holds each limit exactly; only the moment
# of the change depends on the scheduler (a few ms in 6 s). The simulator has no burst
# credits, so a throttle whose limit changes is the deterministic stand-in.
if [[ -z $ONLY || throttle-drop == $ONLY* ]]; then
  exec 8>/tmp/iolens-blkio-cgroup.lock
  flock 8
  IMG=$WORK/loop.img
  fio --name=lfill --filename="$IMG" --size=256m --rw=write --bs=1m --direct=1 --output=/dev/null
  LOOP=$(losetup -f --show --direct-io=on "$IMG")
  MM=$(lsblk -dno MAJ:MIN "$LOOP" | tr -d ' ')
  CG=/sys/fs/cgroup/blkio/iolens-explain-corpus
  mkdir -p $CG
  for t in fio iolens; do
    bin=fio; [[ $t == iolens ]] && bin=$IOLENS
    name=throttle-drop3000to300-iouring-qd8
    echo "== $name ($t)" >&2
    echo "$MM 3000" >$CG/blkio.throttle.read_iops_device
    (sleep 2; echo "$MM 300" >$CG/blkio.throttle.read_iops_device) &
    sh -c 'echo $$ > '"$CG"'/cgroup.procs; exec "$@"' sh "$bin" --name="$name" --filename="$LOOP" --direct=1 \
      --ioengine=io_uring --iodepth=8 --rw=randread --bs=4k --runtime=6 --time_based --output-format=json \
      >"$HERE/$name.$t.json" 2>"$WORK/$name.$t.err" || echo "   failed: $(tail -2 "$WORK/$name.$t.err")" >&2
    wait
  done
  echo "$MM 0" >$CG/blkio.throttle.read_iops_device
  rmdir $CG
  losetup -d "$LOOP"
  rm -f "$IMG"
  flock -u 8
fi
rm -f "$WORK/bw.dat" "$WORK/fs.dat"

#!/bin/bash
# Regenerates advise's real-run fixture: 60 s of 8 KiB random I/O (70 % reads, libaio at QD16)
# under fio 3.33 on a loop device of our own (--direct-io=on, over a file in $WORK), throttled
# by a cgroup v1 blkio rule on the loop device's own major:minor to 2,000 read and 1,000 write
# IOPS. Needs root. Never touches /dev/vda; takes the blkio cgroup lock the explain corpus
# takes, and removes the loop device, the cgroup and the file afterwards.
#
#   ./generate.sh        # writes loop-throttle-60s.fio.json next to this script
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=${WORK:-/tmp/iolens-advise-fixture}
mkdir -p "$WORK"
exec 8>/tmp/iolens-blkio-cgroup.lock
flock 8
IMG=$WORK/loop.img
fio --name=lfill --filename="$IMG" --size=512m --rw=write --bs=1m --direct=1 --output=/dev/null
LOOP=$(losetup -f --show --direct-io=on "$IMG")
MM=$(lsblk -dno MAJ:MIN "$LOOP" | tr -d ' ')
CG=/sys/fs/cgroup/blkio/iolens-advise-fixture
cleanup() {
  echo "$MM 0" >$CG/blkio.throttle.read_iops_device 2>/dev/null || true
  echo "$MM 0" >$CG/blkio.throttle.write_iops_device 2>/dev/null || true
  rmdir $CG 2>/dev/null || true
  losetup -d "$LOOP" 2>/dev/null || true
  rm -f "$IMG"
}
trap cleanup EXIT
mkdir -p $CG
echo "$MM 2000" >$CG/blkio.throttle.read_iops_device
echo "$MM 1000" >$CG/blkio.throttle.write_iops_device
sh -c 'echo $$ > '"$CG"'/cgroup.procs; exec "$@"' sh fio --name=loop-throttle \
  --filename="$LOOP" --direct=1 --ioengine=libaio --iodepth=16 --rw=randrw --rwmixread=70 \
  --bs=8k --size=512m --runtime=60 --time_based --output-format=json \
  >"$HERE/loop-throttle-60s.fio.json"

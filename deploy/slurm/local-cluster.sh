#!/bin/bash
# A one-node Slurm cluster on this machine, for trying deploy/slurm on a real
# scheduler (make slurm-check). Needs root and Debian's packages.
#
#   local-cluster.sh install        apt-get install slurm-wlm and munge (no
#                                   recommends) unless they are installed
#   local-cluster.sh run CMD ARG... start munged, slurmctld and slurmd, run CMD
#                                   with SLURM_CONF set, then cancel every job
#                                   and stop the daemons by their pid files,
#                                   whatever CMD did; exits with CMD's status
#   local-cluster.sh stop           stop daemons a killed run left behind
#
# Everything the daemons write (slurm.conf, the munge key and socket, state,
# spool, logs, pid files) is under $SLURM_STATE (default .cache/slurm of the
# repository); nothing under /etc is read or changed, and no system service is
# started. The node is this host with 2 CPUs (CPUs=2 whatever the machine has)
# and the memory `slurmd -C` sees, capped at 8 GiB. Where `unshare --net`
# works, the daemons and CMD run in a network namespace of their own, so the
# scheduler listens on that namespace's loopback only and cannot clash with
# another Slurm on the host; elsewhere they use 127.0.0.1 of the host.
#
# Exit 3: the cluster cannot be installed or started here (not root, no
# apt-get, packages missing, a daemon that did not come up within its
# timeout); the reason is printed, with the daemons' log tails.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
STATE=${SLURM_STATE:-$(cd "$here/../.." && pwd)/.cache/slurm}
NODE_CPUS=2
PACKAGES="slurm-wlm munge"

cannot() { echo "local-cluster: cannot run a Slurm cluster here: $*" >&2; exit 3; }
installed() { command -v munged && command -v slurmctld && command -v slurmd && command -v sbatch; } >/dev/null 2>&1

install() {
  if installed; then echo "local-cluster: slurm-wlm and munge are installed"; return; fi
  [ "$(id -u)" = 0 ] || cannot "slurm-wlm and munge are not installed, and installing them needs root"
  command -v apt-get >/dev/null || cannot "slurm-wlm and munge are not installed, and there is no apt-get"
  echo "local-cluster: apt-get install $PACKAGES"
  # Debian's maintainer scripts ask to start munge and slurm* services: where
  # a policy-rc.d denies it (containers) nothing starts; elsewhere the stop
  # below ends them (their default config is not ours).
  export DEBIAN_FRONTEND=noninteractive
  timeout 600 apt-get install -y -q --no-install-recommends $PACKAGES >/dev/null ||
    { timeout 300 apt-get update -q >/dev/null && timeout 600 apt-get install -y -q --no-install-recommends $PACKAGES >/dev/null; } ||
    cannot "apt-get install $PACKAGES failed"
  installed || cannot "apt-get installed $PACKAGES but munged, slurmctld, slurmd or sbatch is missing"
}

# pid_of NAME PIDFILE: the pid the file names when that process is NAME and
# not a zombie (a stale file's pid may be another process by now).
pid_of() {
  local pid
  pid=$(cat "$2" 2>/dev/null) || return 1
  [[ $pid =~ ^[0-9]+$ ]] && [ "$(cat /proc/"$pid"/comm 2>/dev/null)" = "$1" ] &&
    [ "$(awk '{print $3}' /proc/"$pid"/stat 2>/dev/null)" != Z ] && echo "$pid"
}

# stop_pid NAME PIDFILE: TERM the daemon, KILL it after 15 s.
stop_pid() {
  local pid
  if pid=$(pid_of "$1" "$2"); then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 150); do pid_of "$1" "$2" >/dev/null || break; sleep 0.1; done
    if pid_of "$1" "$2" >/dev/null; then
      echo "local-cluster: $1 ($pid) did not stop within 15s: killed" >&2
      kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  rm -f "$2"
}

stop() {
  # Jobs first, while slurmctld and slurmd can still end them and their
  # steps: at most 30 s.
  if pid_of slurmctld "$STATE/run/slurmctld.pid" >/dev/null; then
    local end=$((SECONDS + 30))
    export SLURM_CONF=$STATE/etc/slurm.conf
    timeout 10 scancel --full --quiet --user=root 2>/dev/null || true
    while [ $SECONDS -lt $end ] && [ -n "$(timeout 5 squeue -h -o %i 2>/dev/null || echo unknown)" ]; do sleep 0.5; done
  fi
  stop_pid slurmd "$STATE/run/slurmd.pid"
  stop_pid slurmctld "$STATE/run/slurmctld.pid"
  stop_pid munged "$STATE/munge/munged.pid"
}

tails() {
  local f
  for f in "$STATE"/log/*.log "$STATE"/munge/munged.log; do
    [ -f "$f" ] && { echo "--- last lines of $f"; tail -n 15 "$f"; }
  done >&2
}

configure() {
  local host mem
  host=$(hostname -s)
  mem=$(slurmd -C 2>/dev/null | sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p')
  mem=${mem:-4096}
  [ "$mem" -gt 8192 ] && mem=8192
  rm -rf "$STATE/ctld" "$STATE/spool" "$STATE/log" "$STATE/run"
  mkdir -p "$STATE/etc" "$STATE/ctld" "$STATE/spool" "$STATE/log" "$STATE/run" "$STATE/munge/key"
  # munged refuses a socket folder others cannot search, and a key others can read.
  chmod 755 "$STATE" "$STATE/munge"
  chmod 700 "$STATE/munge/key"
  if [ ! -s "$STATE/munge/key/munge.key" ]; then
    head -c 1024 /dev/urandom >"$STATE/munge/key/munge.key.tmp"
    chmod 400 "$STATE/munge/key/munge.key.tmp"
    mv "$STATE/munge/key/munge.key.tmp" "$STATE/munge/key/munge.key"
  fi
  cat >"$STATE/etc/slurm.conf" <<EOF
# Written by deploy/slurm/local-cluster.sh: one node, this host, $NODE_CPUS CPUs.
ClusterName=claimaudit-local
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$STATE/munge/munge.socket.2
StateSaveLocation=$STATE/ctld
SlurmdSpoolDir=$STATE/spool
SlurmctldPidFile=$STATE/run/slurmctld.pid
SlurmdPidFile=$STATE/run/slurmd.pid
SlurmctldLogFile=$STATE/log/slurmctld.log
SlurmdLogFile=$STATE/log/slurmd.log
SlurmctldPort=6817
SlurmdPort=6818
MailProg=/bin/true
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
# Finished jobs stay in slurmctld's memory for an hour: their state and exit
# code are read with scontrol (there is no accounting database for sacct).
MinJobAge=3600
NodeName=$host NodeAddr=127.0.0.1 CPUs=$NODE_CPUS RealMemory=$mem State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
  # Debian's slurmd reads cgroup.conf next to slurm.conf only for cgroup
  # plugins, which this config does not load.
}

# wait_for WHAT SECONDS COMMAND...: poll COMMAND every 0.5 s until it succeeds.
wait_for() {
  local what=$1 secs=$2
  shift 2
  for _ in $(seq $((secs * 2))); do "$@" >/dev/null 2>&1 && return 0; sleep 0.5; done
  tails
  stop
  cannot "$what did not come up within ${secs}s"
}

node_idle() { [ "$(timeout 10 sinfo -h -N -o %t 2>/dev/null)" = idle ]; }

start() {
  [ "$(id -u)" = 0 ] || cannot "the daemons run as root, and this is uid $(id -u)"
  installed || cannot "slurm-wlm and munge are not installed (local-cluster.sh install)"
  stop # what a killed run left behind
  configure
  export SLURM_CONF=$STATE/etc/slurm.conf
  munged --socket="$STATE/munge/munge.socket.2" --key-file="$STATE/munge/key/munge.key" \
    --log-file="$STATE/munge/munged.log" --pid-file="$STATE/munge/munged.pid" \
    --seed-file="$STATE/munge/munged.seed" 9>&- || { tails; cannot "munged did not start"; }
  wait_for munged 20 test -S "$STATE/munge/munge.socket.2"
  slurmctld -c -f "$SLURM_CONF" 9>&- || { tails; stop; cannot "slurmctld did not start"; }
  wait_for slurmctld 60 timeout 10 scontrol ping
  slurmd -f "$SLURM_CONF" 9>&- || { tails; stop; cannot "slurmd did not start"; }
  wait_for "the node (idle in sinfo)" 90 node_idle
  echo "local-cluster: slurmctld and slurmd up ($(hostname -s), $NODE_CPUS CPUs; state in $STATE)"
}

run() {
  [ $# -gt 0 ] || { echo "usage: local-cluster.sh run CMD [ARG...]" >&2; exit 2; }
  [ "$(id -u)" = 0 ] || cannot "the daemons run as root, and this is uid $(id -u)"
  if [ -z "${LOCAL_CLUSTER_NETNS:-}" ] && unshare --net true 2>/dev/null; then
    LOCAL_CLUSTER_NETNS=1 exec unshare --net "$0" run "$@"
  fi
  if [ -n "${LOCAL_CLUSTER_NETNS:-}" ]; then
    # Slurm resolves with AI_ADDRCONFIG, which finds nothing while 127.0.0.1
    # is the only address: lo gets a second one, private to the namespace.
    { ip link set lo up && ip addr add 10.254.254.254/32 dev lo; } ||
      cannot "could not set up the loopback of the network namespace"
  fi
  mkdir -p "$STATE"
  # One cluster per state folder at a time (the pid files are its own). The
  # daemons and CMD do not inherit the lock (9>&-): daemons a killed run
  # left behind must not hold it, the next run stops them.
  exec 9>"$STATE/lock"
  flock -w 300 9 || cannot "another run holds $STATE/lock"
  trap stop EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  start
  export SLURM_CONF=$STATE/etc/slurm.conf
  # CMD in the background: bash runs a trap only once the foreground command
  # ends, and wait returns at a signal, so INT/TERM stop CMD, then the cluster.
  local rc=0 child
  "$@" <&0 9>&- &
  child=$!
  trap 'kill -TERM $child 2>/dev/null; exit 130' INT
  trap 'kill -TERM $child 2>/dev/null; exit 143' TERM
  wait "$child" || rc=$?
  exit "$rc"
}

case ${1:-} in
  install) install ;;
  run) shift; run "$@" ;;
  stop) stop ;;
  *) echo "usage: local-cluster.sh install | run CMD [ARG...] | stop" >&2; exit 2 ;;
esac

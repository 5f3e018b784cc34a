#!/usr/bin/env bash
# Starts a single-node Slurm cluster on this machine for the sweep tests: munged, slurmctld and slurmd with
# a private configuration in $HS_SLURM_DIR (default /tmp/heterosim-slurm), so /etc/slurm stays untouched.
# Prints the SLURM_CONF to export. Reuses a cluster this script started before. Needs root (the daemons run
# as root, munged as munge) and Debian's slurm-wlm and munge (scripts/setup.sh installs them).
# Stop it with: scripts/start-slurm.sh --stop
set -euo pipefail
dir=${HS_SLURM_DIR:-/tmp/heterosim-slurm}
conf=$dir/slurm.conf
export SLURM_CONF=$conf

if [[ ${1:-} == --stop ]]; then
  # Waits for each daemon to exit, so the next test's cluster never meets this one still shutting down.
  stop() {
    local pid
    pid=$(cat "$1" 2>/dev/null) || return 0
    kill "$pid" 2>/dev/null || return 0
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  }
  stop "$dir/slurmd.pid"
  stop "$dir/slurmctld.pid"
  if [[ -f $dir/started-munged ]]; then
    stop /run/munge/munged.pid
    rm -f "$dir/started-munged"
  fi
  exit 0
fi

for tool in munged slurmctld slurmd sbatch; do
  command -v "$tool" >/dev/null || { echo "start-slurm: no $tool (run scripts/setup.sh)" >&2; exit 1; }
done
if [[ $(id -u) -ne 0 ]]; then echo "start-slurm: needs root" >&2; exit 1; fi

if [[ -f $conf ]] && timeout 5 scontrol ping 2>/dev/null | grep -q UP; then
  echo "$conf"
  exit 0
fi

# munge: a key (the package usually makes one) and the daemon, as its own user.
if [[ ! -s /etc/munge/munge.key ]]; then
  mungekey --create --keyfile=/etc/munge/munge.key
  chown munge:munge /etc/munge/munge.key
  chmod 600 /etc/munge/munge.key
fi
mkdir -p /run/munge /var/log/munge /var/lib/munge "$dir/state" "$dir/spool" "$dir/log"
chown munge:munge /run/munge /var/log/munge /var/lib/munge
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
  runuser -u munge -- /usr/sbin/munged
  touch "$dir/started-munged"
  for _ in $(seq 50); do munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break; sleep 0.1; done
fi
host=$(hostname -s)
cat > "$conf" <<CONF
ClusterName=heterosim-test
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
slurmctld
slurmd
for _ in $(seq 100); do
  if sinfo -h -o %t 2>/dev/null | grep -qE '^(idle|mix|alloc)'; then
    echo "$conf"
    exit 0
  fi
  sleep 0.2
done
echo "start-slurm: the node did not become idle; logs in $dir/log" >&2
sinfo >&2 || true
exit 1

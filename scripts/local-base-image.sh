# Sourced by scripts/fresh-machine-check.sh and scripts/cluster-check.sh: a Debian 12 base image made here, for a
# Docker host that reaches Debian's mirror but no image registry. `local_base_image IMAGE ROOTFS LOG` debootstraps a
# minbase bookworm into ROOTFS (once) and imports it as IMAGE (once).
local_base_image() {
  local image="$1" rootfs="$2" log="$3"
  docker image inspect "$image" >/dev/null 2>&1 && return 0
  command -v debootstrap >/dev/null || { echo "debootstrap is needed: apt-get install debootstrap" >&2; return 2; }
  if [ ! -x "$rootfs/bin/bash" ]; then
    echo "[base image] debootstrap --variant=minbase bookworm $rootfs" >&2
    debootstrap --variant=minbase bookworm "$rootfs" http://deb.debian.org/debian >>"$log" 2>&1 || return 1
  fi
  echo "[base image] docker import $rootfs as $image" >&2
  tar -C "$rootfs" -c . | docker import - "$image" >>"$log"
}

# The CA bundle entries this machine adds to Debian's (a sandbox's egress re-signing TLS): listed, one per line.
extra_ca_files() {
  compgen -G '/usr/local/share/ca-certificates/*.crt' || true
}

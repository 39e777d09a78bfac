#!/usr/bin/env bash
# Installs the Debian packages Searchlight builds and runs with. Idempotent; uses sudo
# only when not already root.
set -euo pipefail
packages=(pkg-config libxml2-dev libcurl4-openssl-dev libsqlite3-dev libmicrohttpd-dev libpsl-dev zlib1g-dev)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"

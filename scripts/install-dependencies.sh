#!/usr/bin/env bash
# Installs the Debian packages Searchlight builds and runs with (Chromium renders
# client-rendered pages, the demo's Tartine among them); with --tests, also what the tests
# use (PostgreSQL for the multi-machine tests, chromedriver for the search page, python3
# with warcio, a real WARC reader, from PyPI). Idempotent; uses sudo only when not already root.
set -euo pipefail
packages=(pkg-config libxml2-dev libcurl4-openssl-dev libsqlite3-dev libmicrohttpd-dev libpsl-dev libidn2-dev zlib1g-dev libdeflate-dev libzstd-dev libssl-dev libpq-dev libstemmer-dev chromium)
tests=false
if [ "${1:-}" = "--tests" ]; then tests=true; fi
# The search page's browser test: headless Chromium, its WebDriver, and CJK fonts for the screenshots;
# GNU time for the peak memory of a hostile ingest.
if $tests; then packages+=(postgresql chromium-driver fonts-noto-cjk time); fi
if $tests && ! python3 -m pip --version >/dev/null 2>&1; then packages+=(python3 python3-pip); fi
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
if [ ${#missing[@]} -gt 0 ]; then
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
fi
if $tests && ! python3 -c "import warcio" 2>/dev/null; then
  # Debian's own python3 refuses user installs into it (PEP 668) unless told.
  python3 -m pip install --quiet warcio 2>/dev/null || python3 -m pip install --quiet --break-system-packages warcio
fi

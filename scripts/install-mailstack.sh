#!/usr/bin/env bash
# Installs the real servers and tools the tests use: Dovecot IMAP + LMTP (started on loopback by
# the fixtures), systemd-analyze (the unit's verify/security gate), libfaketime (the F14
# clock-jump tests) and Chromium (the archive's headless screenshot test, tests/archive).
# Idempotent and quick when everything is there.
set -euo pipefail
pkgs=()
command -v dovecot >/dev/null 2>&1 || pkgs+=(dovecot-imapd dovecot-lmtpd)
command -v systemd-analyze >/dev/null 2>&1 || pkgs+=(systemd)
command -v faketime >/dev/null 2>&1 || pkgs+=(faketime)  # libfaketime: the F14 clock-jump tests
command -v chromium >/dev/null 2>&1 || pkgs+=(chromium)  # the archive's screenshot test
[ ${#pkgs[@]} -eq 0 ] && exit 0
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null

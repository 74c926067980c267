#!/usr/bin/env bash
# Installs the real mail servers the tests start on loopback (Dovecot IMAP + LMTP).
set -euo pipefail
if command -v dovecot >/dev/null 2>&1; then exit 0; fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends dovecot-imapd dovecot-lmtpd >/dev/null

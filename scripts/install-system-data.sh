#!/usr/bin/env bash
# Debian packages the workbench uses when present (one line and go on when they cannot be had):
#   wordnet-base: WordNet 3.0, the external words of Barakat2016's weak attacker (attacks.knowledge)
#                 and the WordNet half of the default relatedness scorer (attacks.wordnet).
#   weka:         only its example files: Reuters-21578 texts (text source `reuters`) and the
#                 supermarket basket data. The package is downloaded and unpacked with dpkg-deb, so
#                 no Java is installed; the examples are copied to /usr/share/doc/weka/examples.
#   chromium:     the browser tests/test_report_browser.py loads the HTML reports in (headless, offline).
#   postgresql:   the server binaries (initdb, pg_ctl) that tests/pg_server.py starts a private server with
#                 for the --sql/--to-db tests (no cluster is created or started here; without it they skip).
set -u
WEKA_EXAMPLES=/usr/share/doc/weka/examples
can_apt() { command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; }
updated=0
apt_update() { if [ "$updated" = 0 ]; then apt-get update -qq >/dev/null 2>&1; updated=1; fi; }

if [ ! -f /usr/share/wordnet/index.noun ]; then
  if can_apt && (apt_update && apt-get install -y -qq --no-install-recommends wordnet-base) >/dev/null 2>&1; then
    :
  else
    echo "note: Debian's wordnet-base is not installed; the weak attacker uses the GloVe vocabulary and the default scorer is GloVe alone"
  fi
fi

if [ ! -f "$WEKA_EXAMPLES/ReutersGrain-test.arff" ]; then
  tmp=$(mktemp -d)
  if can_apt && (apt_update && cd "$tmp" && apt-get download weka && dpkg-deb -x weka_*.deb x \
        && mkdir -p "$WEKA_EXAMPLES" && cp x/usr/share/doc/weka/examples/*.arff "$WEKA_EXAMPLES/") >/dev/null 2>&1; then
    :
  else
    echo "note: Debian's weka examples are not installed; the text source 'reuters' is absent and pooled corpora go without it"
  fi
  rm -rf "$tmp"
fi

if [ ! -x /usr/bin/chromium ]; then
  if can_apt && (apt_update && apt-get install -y -qq --no-install-recommends chromium) >/dev/null 2>&1; then
    :
  else
    echo "note: Debian's chromium is not installed; tests/test_report_browser.py is skipped (the HTML reports are not checked in a browser)"
  fi
fi

if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && ! command -v initdb >/dev/null 2>&1; then
  if can_apt && (apt_update && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        postgresql) >/dev/null 2>&1; then
    :
  else
    echo "note: Debian's postgresql is not installed; the PostgreSQL tests of --sql/--to-db skip"
  fi
fi
exit 0

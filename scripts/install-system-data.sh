#!/usr/bin/env bash
# Debian packages the workbench uses when present (one line and go on when they cannot be had):
#   wordnet-base: WordNet 3.0, the external words of Barakat2016's weak attacker (attacks.knowledge).
set -u
if [ -f /usr/share/wordnet/index.noun ]; then
  exit 0
fi
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  if (apt-get update -qq && apt-get install -y -qq --no-install-recommends wordnet-base) >/dev/null 2>&1; then
    exit 0
  fi
fi
echo "note: Debian's wordnet-base is not installed; the weak attacker will use the GloVe vocabulary instead"
exit 0

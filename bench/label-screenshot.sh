#!/usr/bin/env bash
# Remakes docs/label.png and docs/adjudicate.png, the labelling and
# adjudication pages docs/set.md shows: the Chromium
# test that grades with real key presses (through the DevTools protocol)
# saves its screenshot there. The page replays nothing from its URL, so the
# browser, not the address, does the typing.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v chromium >/dev/null || { echo "chromium is not installed (apt-get install chromium)"; exit 1; }
RECALLGATE_LABEL_SCREENSHOT="$PWD/docs/label.png" go test ./cmd/recallgate -run '^TestLabelPageInChromium$' -count=1
RECALLGATE_ADJUDICATE_SCREENSHOT="$PWD/docs/adjudicate.png" go test ./cmd/recallgate -run '^TestTwoLabellersAndAdjudicationInChromium$' -count=1
echo "wrote docs/label.png and docs/adjudicate.png"

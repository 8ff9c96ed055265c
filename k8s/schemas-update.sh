#!/usr/bin/env bash
# Extracts the schema of every served version of one or more CustomResourceDefinitions into
# src/test/resources/k8s-schemas/<group>/<kind in lower case>_<version>.json (kubeconform's CRD-catalog layout), which
# CustomResourceSchemasTest validates the overlays' custom resources against. Only spec.versions[].schema.openAPIV3Schema
# is kept, without its description texts (documentation, not validation: they would triple the files); everything else
# is the upstream schema as it stands. The test makes it strict when it loads it, so never edit the JSON by hand.
# Usage: k8s/schemas-update.sh CRD.yaml...   (a file, or - for standard input). Each CRD's repository, tag and commit
# go in src/test/resources/k8s-schemas/README.md, which has the commands that made the current files.
# Needs python3 with PyYAML (Debian: python3-yaml).
set -euo pipefail
out="$(cd "$(dirname "$0")/.." && pwd)/src/test/resources/k8s-schemas"
extract=$(cat <<'EOF'
import json, os, sys, yaml

def without_descriptions(node):
    if isinstance(node, dict):
        return {k: without_descriptions(v) for k, v in node.items() if not (k == "description" and isinstance(v, str))}
    if isinstance(node, list):
        return [without_descriptions(v) for v in node]
    return node

out, sources = sys.argv[1], sys.argv[2:]
if not sources:
    sys.exit("usage: k8s/schemas-update.sh CRD.yaml... (- for standard input)")
for source in sources:
    with (sys.stdin if source == "-" else open(source, encoding="utf-8")) as stream:
        for crd in yaml.safe_load_all(stream):
            if not crd or crd.get("kind") != "CustomResourceDefinition":
                continue
            group, kind = crd["spec"]["group"], crd["spec"]["names"]["kind"]
            for version in crd["spec"]["versions"]:
                if not version.get("served"):
                    continue
                path = os.path.join(out, group, f"{kind.lower()}_{version['name']}.json")
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w", encoding="utf-8") as target:
                    json.dump(without_descriptions(version["schema"]["openAPIV3Schema"]), target, indent=1)
                    target.write("\n")
                print(os.path.relpath(path))
EOF
)
# -c, not a here-document on standard input: "-" reads the CRD from there
python3 -c "$extract" "$out" "$@"

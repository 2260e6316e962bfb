#!/usr/bin/env python3
"""Offline structural check of iolens-indexed-job.yaml (kubectl apply --dry-run=client needs an
API server for discovery, so it cannot run offline): kinds and API versions, an Indexed Job whose
--world-size matches its completions, a headless Service that names its pods, a coordinator
address that is rank 0's DNS name and a Service port, a token from the Secret, and the image
the README builds and pushes, tagged with this version of iolens."""
import pathlib
import re
import sys
import yaml

docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
by = {d["kind"]: d for d in docs}
errors = []
def check(cond, what):
    if not cond:
        errors.append(what)

check(sorted(by) == ["Job", "Secret", "Service"], f"kinds: {sorted(by)}")
check(by["Job"]["apiVersion"] == "batch/v1", "Job apiVersion batch/v1")
check(by["Service"]["apiVersion"] == "v1" and by["Secret"]["apiVersion"] == "v1", "v1 Service/Secret")
job, svc, sec = by["Job"], by["Service"], by["Secret"]
js = job["spec"]
check(js.get("completionMode") == "Indexed", "completionMode: Indexed")
check(js.get("completions") == js.get("parallelism"), "parallelism == completions (all ranks at once)")
pod = js["template"]["spec"]
check(pod.get("restartPolicy") == "Never", "restartPolicy: Never")
check(pod.get("subdomain") == svc["metadata"]["name"], "subdomain is the Service's name")
check(svc["spec"].get("clusterIP") == "None", "headless Service")
check(svc["spec"]["selector"].get("job-name") == job["metadata"]["name"], "Service selects the Job's pods")
c = pod["containers"][0]
args = c["args"]
check(f"--world-size={js['completions']}" in args, "--world-size equals completions")
env = {e["name"]: e for e in c["env"]}
coord = env["IOLENS_COORDINATOR"]["value"]
host, port = coord.rsplit(":", 1)
check(host == f"{job['metadata']['name']}-0.{pod['subdomain']}", f"coordinator {host} is rank 0's pod name")
check(int(port) in [p["port"] for p in svc["spec"]["ports"]], "coordinator port is a Service port")
ref = env["IOLENS_TOKEN"]["valueFrom"]["secretKeyRef"]
check(ref["name"] == sec["metadata"]["name"] and ref["key"] in sec["stringData"], "token from the Secret")
cargo = (pathlib.Path(__file__).resolve().parents[2] / "Cargo.toml").read_text()
version = re.search(r'^version = "(.+)"$', cargo, re.M).group(1)
image = f"registry.example.invalid/iolens:{version}"
check(c["image"] == image, f"image {c['image']}: expected {image}, the name the README builds and pushes")
mounts = {m["name"] for m in c["volumeMounts"]}
check(mounts <= {v["name"] for v in pod["volumes"]}, "every mount has a volume")
if errors:
    print("\n".join(errors))
    sys.exit(1)
print("ok")

"""The files of a tuning run: results.json (everything so far) and, once an M has a winner, the
vLLM MoE config (E=8,N=14336,device_name=<GPU>.json and its copy vllm_moe_config.json)."""
import json
import os

import moe_algo
import tune_report as tr


def write(out_dir, res):
    with open(os.path.join(out_dir, "results.json"), "w") as f:
        json.dump(res, f, indent=1, default=str)
    winners = {}
    for m, e in res.get("moe", {}).items():
        if e.get("winner"):
            winners[m] = moe_algo.parse_tile_set(e["winner"])
    if winners:
        name = tr.vllm_moe_file_name(8, 14336, res["device"])
        for fname in (name, "vllm_moe_config.json"):  # the second travels back from the GPU node
            with open(os.path.join(out_dir, fname), "w") as f:
                f.write(tr.dump_vllm_moe(winners))

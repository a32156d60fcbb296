"""How many GPUs of a unit a cloud rents, as the counts of a sizing on the cloud basis see it.

On the cloud basis (core/sizing/compare_costs.py ``BASES``) a buyer rents GPUs, not servers: a
RunPod Pod is "0 or more GPUs" of one machine (docs.runpod.io/sdks/graphql/manage-pods;
``runpodctl create pods --gpuCount``: "number of GPUs for the pod (default 1)",
docs.runpod.io/references/runpodctl/runpodctl_create_pods), priced per "GPU hour"
(runpod.io/pricing as transcribed 2026-10-07 in api-evangelist/runpod
plans/runpod-plans-pricing.yml: "Pods - H100 SXM $ 3.49 /hr, unit: GPU hour"). So within one
unit the count is rounded up to the unit's ``rental_gpus`` (presets/systems/*.json: 1 where
the provider rents by the GPU; 4 for a GB200/GB300 NVL72, rented by its 4-GPU trays; 8 for
the MI355X platform, which Oracle rents only as a whole 8-GPU bare-metal shape), not to the
whole unit.

Past one unit the count is whole units: a cluster across machines is rented as whole nodes
(RunPod Instant Clusters: "Pod Count 2 and select 8x H100 SXM GPUs per pod",
docs.runpod.io/instant-clusters/ray-vllm.md), and TP runs within a node.

A unit with no cloud price keeps whole units (nothing to rent by the GPU; it ranks by its
purchase, core/sizing/compare_purchase.py), and buying keeps whole units always.
"""

from __future__ import annotations

from .systems import PurchaseUnit


def rental_size(unit: PurchaseUnit, gpus: int) -> int:
    """GPUs a count of ``gpus`` is rounded to on ``unit`` when renting: ``rental_gpus``
    within one unit that a cloud prices, else the whole unit (module docstring)."""
    if unit.price_per_hour is None or max(1, gpus) > unit.gpus:
        return unit.gpus
    return unit.rental_gpus

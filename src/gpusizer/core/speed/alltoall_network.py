"""An expert-parallel all-to-all whose group spans nodes: each GPU's share of the copies bound for
other nodes leaves through one NIC's worth of bandwidth (the training step's dispatch and
combine, core/speed/train_layer.py).

Megatron-Core's all-to-all dispatcher (``MoEAlltoAllTokenDispatcher``, Megatron-LM
``megatron/core/transformer/moe/token_dispatcher.py`` at d30c3ae) sends each rank's routed
copies (tokens x top_k hidden states) through one ``torch.distributed.all_to_all_single``: under
balanced routing every rank sends the same share to every rank of the EP group, so the share
(ranks - ranks in its node) / ranks goes to other nodes. Every GPU of a node is in some EP group
and runs the same all-to-all at once, so a node's off-node bytes are its GPUs' together over its
NICs together: one NIC's rate per GPU (one 400 Gb/s NIC per GPU on an HGX H100 / H800 board),
whichever NIC carries a given send (NCCL's PXN forwards over NVLink to the NIC on the
destination's rail; the bytes per NIC stay the same). Inside the node the sends take NVLink at
the same time. The all-to-all lasts the longer of the two, plus the network's latency.

- The NIC's rate: ``collectives.NETWORK_BETA``, 47 GB/s a GPU (the 400 Gb/s NIC's achieved
  rate), scaled by the scenario's network rate as ``train_rates.group_link`` scales it. DeepEP's
  README ("Normal kernels with NVLink and RDMA forwarding"; ``deepseek-ai/DeepEP/docs/legacy.md``
  in its V2: H800 with a ConnectX-7 400 Gb/s NIC a GPU, "~50 GB/s maximum", 4,096 tokens,
  hidden 7,168, top-8) measures the internode dispatch and combine at 43-58 GB/s of RDMA "bottleneck
  bandwidth" a GPU for EP 16, 32 and 64: one NIC's rate, not the node's eight.
- DeepEP and HybridEP (``parallelism.expert_dispatcher``: Megatron-Core's flex dispatcher,
  ``--moe-flex-dispatcher-backend deepep | hybridep``) send a token over the network once to
  each other node that holds any of its experts and forward it over NVLink there (Megatron-LM
  ``megatron/core/transformer/moe/README.md`` at d98e8a6: DeepEP "Removes redundant tokens
  during cross-node communication"; ``deepseek-ai/DeepEP/docs/README_Hybrid-EP.md``: HybridEP's
  "Hierarchical Communication Design", RDMA between nodes and NVLink inside one; the DeepSeek-V3
  report, arXiv 2412.19437 §3.2.2, each token "transmitted via IB to the GPUs with the same
  in-node index on its target nodes" then "forwarded via NVLink"). Under balanced routing a
  token's top_k experts are a uniform draw without replacement among the group's experts
  (:func:`remote_copies`); the forwarded copies cross NVLink in the destination node.

The step priced such a group before as an all-gather over the node's NICs together
(``group_link``: ranks in a node x one NIC), which is NCCL's rings' rate but not an
all-to-all's: every GPU sends its own off-node share at the same time.
"""

from __future__ import annotations

from .collectives import Link

# Megatron-Core's flex dispatcher backends that send a token once per destination node
DEDUPLICATING = frozenset({"deepep", "hybridep"})


def remote_copies(top_k: int, experts: int, ranks: int, in_node: int, dedup: bool) -> float:
    """Copies of one token's hidden state a rank sends to other nodes, under balanced routing,
    over an EP group of ``ranks`` with ``in_node`` per node holding ``experts`` routed experts:
    top_k x the off-node share for a plain all-to-all, else one copy per other node that holds
    at least one of the token's experts (module docstring)."""
    if ranks <= 1 or in_node >= ranks:
        return 0.0
    nodes = ranks / max(1, in_node)
    off = (ranks - max(1, in_node)) / ranks
    if not dedup or experts <= top_k:
        return top_k * off
    per_node = experts / nodes  # experts of the group in one node
    none_there = 1.0
    for i in range(top_k):  # P(no expert of the token in a given node), drawn without replacement
        none_there *= max(0.0, (experts - per_node - i) / (experts - i))
    return min(top_k * off, (nodes - 1) * (1.0 - none_there))


def node_copies(top_k: int, experts: int, ranks: int, in_node: int, dedup: bool) -> tuple[float, float]:
    """(copies a rank sends to other nodes, copies that cross NVLink inside a node) of one
    token: a plain all-to-all's to the other ranks of its own node, top_k (in_node - 1) / ranks;
    a deduplicating dispatcher's forwarded copies too: in each of the ``ranks / in_node`` nodes
    the token reaches one GPU (its own, or over the network the GPU of its in-node index) and
    NVLink carries the copies for that node's other ``in_node - 1`` GPUs, top_k (in_node - 1) /
    in_node in all (none with one GPU a node; module docstring)."""
    off = remote_copies(top_k, experts, ranks, in_node, dedup)
    n = max(1, in_node)
    inside = (n - 1) / n if dedup else (n - 1) / ranks
    return off, top_k * inside


def network_all_to_all_seconds(
    copy_bytes: float, copies: tuple[float, float], nic: Link, inside: Link
) -> float:
    """Seconds of one all-to-all of a rank's routed copies across nodes: ``copies`` = (copies
    sent to other nodes, copies sent inside the node), each ``copy_bytes``, the first over one
    NIC's rate (``nic``), the second over ``inside`` at the same time (module docstring)."""
    off, on = copies
    if off <= 0.0 or nic.beta <= 0:
        return 0.0
    on_seconds = on * copy_bytes / inside.beta if inside.beta > 0 else 0.0
    return nic.alpha + max(off * copy_bytes / nic.beta, on_seconds)

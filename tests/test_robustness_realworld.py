"""False alarms found on the real-world corpus (docs/real-world.md), reduced to a few lines each:
they must stay silent. Each snippet is written to have the shape of the original code and was
checked to be reported by the code before its fix."""
from __future__ import annotations

import textwrap

import pytest

from torchtype_lint.checker.check import Settings, check_source
from torchtype_lint.model.selection import Selection

ALL_RULES = Settings(selection=Selection(select=["TTL"], extend_select=["TTL9"]))

SNIPPETS = {
    # timm/models/naflexvit.py:692 — an index list grown through setdefault(...).append(...)
    "timm_naflexvit_TTL209": """
        import torch
        from typing import Dict, List, Tuple

        def add_pos(x: torch.Tensor, grid_sizes, table: torch.Tensor) -> None:
            size_to_indices: Dict[Tuple[int, int], List[int]] = {}
            for bi, k in enumerate(grid_sizes):
                size_to_indices.setdefault(k, []).append(bi)
            for k, batch_indices in size_to_indices.items():
                x.index_add_(0, torch.as_tensor(batch_indices, device=x.device),
                             table.expand(len(batch_indices), -1, -1))
    """,
    # torchmetrics/detection/_mean_ap.py:644 — an int threshold id used as an index
    "torchmetrics_mean_ap_TTL210": """
        import torch

        def find_best(threshold: float, gt_matches: torch.Tensor, idx_iou: float, gt_ignore: torch.Tensor,
                      ious: torch.Tensor, idx_det: int) -> int:
            previously_matched = gt_matches[idx_iou]
            remove_mask = previously_matched | gt_ignore
            gt_ious = ious[idx_det] * ~remove_mask
            return gt_ious.argmax().item()
    """,
    # timm/data/mixup.py:265 — opt-in TTL901 claimed an unknown dtype for an explicit astype
    "timm_mixup_TTL901": """
        import numpy as np
        import torch

        def collate(batch, is_np: bool):
            output = torch.zeros((len(batch), 3, 4, 4), dtype=torch.uint8)
            for i, mixed in enumerate(batch):
                output[i] += torch.from_numpy(mixed.astype(np.uint8)) if is_np else mixed.byte()
            return output
    """,
    # torch_geometric/nn/pool/approx_knn.py:63 — opt-in TTL901 ignored a later .to(x.device, x.dtype)
    "pyg_approx_knn_TTL901": """
        import numpy as np
        import torch

        def knn_dist(index, x: torch.Tensor, y, k: int):
            dist, col = index.search(y.numpy(), k)
            dist = torch.from_numpy(dist).view(-1).to(x.device, x.dtype)
            return dist
    """,
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_real_world_false_alarms_stay_silent(name):
    result = check_source(textwrap.dedent(SNIPPETS[name]), f"{name}.py", ALL_RULES)
    assert [(f.code, f.line, f.message) for f in result.findings] == []

"""Bug: the detector's build_targets keeps its grid gain as a float tensor (filled from the prediction maps' shapes) and clamps the int64 grid indices in place against gain[3] - 1; with a newer torch the in-place clamp refuses a Float bound on a Long tensor.

family: int-float
category: model-outputs
expected: RuntimeError
message: result type Float can't be cast to the desired output type long int
source: https://github.com/AlibabaResearch/efficientteacher/issues/142
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Detect(nn.Module):
    def __init__(self, nc=3, na=2, ch=16, anchors=((4, 5), (8, 10))):
        super().__init__()
        self.nc, self.na, self.no = nc, na, nc + 5
        self.register_buffer("anchors", torch.tensor(anchors, dtype=torch.float32))
        self.backbone = nn.Sequential(nn.Conv2d(3, ch, 3, 2, 1), nn.SiLU(), nn.Conv2d(ch, ch, 3, 2, 1), nn.SiLU())
        self.m = nn.Conv2d(ch, self.na * self.no, 1)

    def forward(self, x):
        y = self.m(self.backbone(x))
        bs, _, ny, nx = y.shape
        return [y.view(bs, self.na, self.no, ny, nx).permute(0, 1, 3, 4, 2).contiguous()]


class ComputeLoss:
    def __init__(self, model, anchor_t=4.0):
        self.na, self.nc, self.anchors, self.anchor_t = model.na, model.nc, model.anchors, anchor_t

    def build_targets(self, p, targets):
        nt = targets.shape[0]
        tcls, tbox, indices = [], [], []
        gain = torch.ones(7)  # cause: float gain, filled from the prediction shapes below
        ai = torch.arange(self.na).float().view(self.na, 1).repeat(1, nt)
        targets = torch.cat((targets.repeat(self.na, 1, 1), ai[:, :, None]), 2)
        for pi in p:
            gain[2:6] = torch.tensor(pi.shape)[[3, 2, 3, 2]]
            t = targets * gain
            r = t[:, :, 4:6] / self.anchors[:, None]
            t = t[torch.max(r, 1 / r).max(2)[0] < self.anchor_t]
            b, c = t[:, :2].long().T
            gxy, gwh = t[:, 2:4], t[:, 4:6]
            gi, gj = gxy.long().T
            a = t[:, 6].long()
            indices.append((b, a, gj.clamp_(0, gain[3] - 1), gi.clamp_(0, gain[2] - 1)))  # bug: Long clamped in place by a Float bound
            tbox.append(torch.cat((gxy - gxy.long(), gwh), 1))
            tcls.append(c)
        return tcls, tbox, indices

    def __call__(self, p, targets):
        tcls, tbox, indices = self.build_targets(p, targets)
        lbox, lobj, lcls = torch.zeros(1), torch.zeros(1), torch.zeros(1)
        for i, pi in enumerate(p):
            b, a, gj, gi = indices[i]
            tobj = torch.zeros_like(pi[..., 0])
            if b.shape[0]:
                ps = pi[b, a, gj, gi]
                lbox += F.smooth_l1_loss(ps[:, :4], tbox[i])
                tobj[b, a, gj, gi] = 1.0
                lcls += F.cross_entropy(ps[:, 5:], tcls[i])
            lobj += F.binary_cross_entropy_with_logits(pi[..., 4], tobj)
        return lbox + lobj + lcls


def main():
    torch.manual_seed(0)
    model = Detect()
    compute_loss = ComputeLoss(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.937)
    imgs = torch.rand(2, 3, 32, 32)
    targets = torch.tensor([[0, 1, 0.5, 0.5, 0.4, 0.5], [1, 2, 0.99, 0.3, 0.3, 0.3], [1, 0, 0.2, 0.7, 0.5, 0.6]])
    for _ in range(2):
        loss = compute_loss(model(imgs), targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"loss {loss.item():.4f}")


if __name__ == "__main__":
    main()

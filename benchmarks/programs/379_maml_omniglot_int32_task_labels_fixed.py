"""Fixed twin of 379_maml_omniglot_int32_task_labels_bug.py: the task cache builds its labels as int64, the dtype cross_entropy takes for class indices.

family: class-target
category: factories
expected: success
source: https://github.com/dragen1860/MAML-Pytorch/issues/45
"""
import argparse

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class OmniglotNShot:
    def __init__(self, batchsz, n_way, k_shot, k_query, imgsz, n_cls=20, seed=0):
        self.rng = np.random.RandomState(seed)
        self.x = self.rng.rand(n_cls, 20, 1, imgsz, imgsz).astype(np.float32)
        self.batchsz, self.n_way, self.k_shot, self.k_query = batchsz, n_way, k_shot, k_query

    def load_data_cache(self):
        x_spts, y_spts, x_qrys, y_qrys = [], [], [], []
        for _ in range(self.batchsz):
            x_spt, y_spt, x_qry, y_qry = [], [], [], []
            selected_cls = self.rng.choice(self.x.shape[0], self.n_way, False)
            for j, cur_class in enumerate(selected_cls):
                selected_img = self.rng.choice(20, self.k_shot + self.k_query, False)
                x_spt.append(self.x[cur_class][selected_img[:self.k_shot]])
                x_qry.append(self.x[cur_class][selected_img[self.k_shot:]])
                y_spt.append([j for _ in range(self.k_shot)])
                y_qry.append([j for _ in range(self.k_query)])
            x_spts.append(np.concatenate(x_spt))
            x_qrys.append(np.concatenate(x_qry))
            y_spts.append(np.array(y_spt).reshape(-1).astype(np.int64))
            y_qrys.append(np.array(y_qry).reshape(-1).astype(np.int64))
        return [np.stack(a) for a in (x_spts, y_spts, x_qrys, y_qrys)]

    def next(self):
        return self.load_data_cache()


class Learner(nn.Module):
    def __init__(self, n_way):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(1, 8, 3, 2), nn.ReLU(), nn.BatchNorm2d(8),
                                 nn.Conv2d(8, 8, 3, 2), nn.ReLU(), nn.Flatten(), nn.LazyLinear(n_way))

    def forward(self, x, params=None):
        if params is None:
            return self.net(x)
        return torch.func.functional_call(self.net, params, (x,))


class Meta(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.update_lr, self.update_step = args.update_lr, args.update_step
        self.net = Learner(args.n_way)
        self.net(torch.zeros(1, 1, args.imgsz, args.imgsz))
        self.meta_optim = torch.optim.Adam(self.net.parameters(), lr=args.meta_lr)

    def forward(self, x_spt, y_spt, x_qry, y_qry):
        loss_q = 0.0
        for i in range(x_spt.size(0)):
            params = dict(self.net.net.named_parameters())
            for _ in range(self.update_step):
                logits = self.net(x_spt[i], params)
                loss = F.cross_entropy(logits, y_spt[i])
                grads = torch.autograd.grad(loss, list(params.values()))
                params = {k: p - self.update_lr * g for (k, p), g in zip(params.items(), grads)}
            loss_q = loss_q + F.cross_entropy(self.net(x_qry[i], params), y_qry[i])
        self.meta_optim.zero_grad()
        (loss_q / x_spt.size(0)).backward()
        self.meta_optim.step()
        return loss_q.item() / x_spt.size(0)


def main(args):
    torch.manual_seed(222)
    db_train = OmniglotNShot(args.task_num, args.n_way, args.k_spt, args.k_qry, args.imgsz)
    maml = Meta(args)
    for step in range(args.epoch):
        x_spt, y_spt, x_qry, y_qry = db_train.next()
        x_spt, y_spt, x_qry, y_qry = (torch.from_numpy(a) for a in (x_spt, y_spt, x_qry, y_qry))
        loss = maml(x_spt, y_spt, x_qry, y_qry)
    print(f"step {step} query loss {loss:.4f}")


if __name__ == "__main__":
    argparser = argparse.ArgumentParser()
    argparser.add_argument("--epoch", type=int, default=3)
    argparser.add_argument("--n_way", type=int, default=5)
    argparser.add_argument("--k_spt", type=int, default=1)
    argparser.add_argument("--k_qry", type=int, default=3)
    argparser.add_argument("--imgsz", type=int, default=16)
    argparser.add_argument("--task_num", type=int, default=2)
    argparser.add_argument("--meta_lr", type=float, default=1e-3)
    argparser.add_argument("--update_lr", type=float, default=0.4)
    argparser.add_argument("--update_step", type=int, default=2)
    main(argparser.parse_args([]))

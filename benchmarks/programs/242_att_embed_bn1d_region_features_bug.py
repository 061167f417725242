"""Bug: with use_bn the captioning model's att_embed starts with BatchNorm1d(att_feat_size), but the region features reach it as (batch, regions, feat) without being packed to (regions, feat) first, so BatchNorm1d takes the region axis as its channels.

family: shape
category: model-outputs
expected: RuntimeError
message: running_mean should contain 6 elements not 32
source: https://github.com/ruotianluo/self-critical.pytorch/issues/44
"""
import argparse

import torch
import torch.nn as nn


def pack_wrapper(module, att_feats):
    batch, regions, _ = att_feats.shape
    return module(att_feats.reshape(batch * regions, -1)).reshape(batch, regions, -1)


class AttModel(nn.Module):
    def __init__(self, opt):
        super().__init__()
        self.att_feat_size, self.rnn_size = opt.att_feat_size, opt.rnn_size
        self.att_embed = nn.Sequential(*(
            ((nn.BatchNorm1d(self.att_feat_size),) if opt.use_bn else ())
            + (nn.Linear(self.att_feat_size, self.rnn_size), nn.ReLU(), nn.Dropout(opt.drop_prob_lm))))
        self.fc_embed = nn.Sequential(nn.Linear(opt.fc_feat_size, self.rnn_size), nn.ReLU())
        self.ctx2att = nn.Linear(self.rnn_size, opt.att_hid_size)
        self.logit = nn.Linear(self.rnn_size, opt.vocab_size + 1)

    def _prepare_feature(self, fc_feats, att_feats):
        att_feats = self.att_embed(att_feats)  # bug: BatchNorm1d(feat) gets (batch, regions, feat)  # cause: not packed
        p_att_feats = self.ctx2att(att_feats)
        return self.fc_embed(fc_feats), att_feats, p_att_feats

    def forward(self, fc_feats, att_feats):
        fc, att, p_att = self._prepare_feature(fc_feats, att_feats)
        weights = torch.softmax(p_att.sum(-1), dim=1).unsqueeze(-1)
        return self.logit(fc + (weights * att).sum(1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--use_bn", type=int, default=1)
    parser.add_argument("--att_feat_size", type=int, default=32)
    parser.add_argument("--fc_feat_size", type=int, default=32)
    parser.add_argument("--rnn_size", type=int, default=16)
    parser.add_argument("--att_hid_size", type=int, default=8)
    parser.add_argument("--drop_prob_lm", type=float, default=0.5)
    parser.add_argument("--vocab_size", type=int, default=20)
    opt = parser.parse_args([])
    torch.manual_seed(0)
    model = AttModel(opt)
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-4)
    for _ in range(2):
        fc_feats, att_feats = torch.randn(4, opt.fc_feat_size), torch.randn(4, 6, opt.att_feat_size)
        words = torch.randint(0, opt.vocab_size + 1, (4,))
        loss = nn.functional.cross_entropy(model(fc_feats, att_feats), words)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"loss {loss.item():.3f}")


if __name__ == "__main__":
    main()

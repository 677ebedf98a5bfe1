import io
import json

import numpy as np
from PIL import Image

from annotation.core import rle
from annotation.core.epic import LEAVES
from annotation.core.export import ExportImage, ExportItem, export_files, read_layout, safe_stem, write_files


def jpg(width=40, height=30):
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), (100, 100, 100)).save(buffer, format="JPEG")
    return buffer.getvalue()


def mask(y1, y2, x1, x2, size=(30, 40)):
    m = np.zeros(size, bool)
    m[y1:y2, x1:x2] = True
    return rle.encode(m)


def test_tl_item_exports_image_and_gt_with_listed_scalars(tmp_path):
    leaf = LEAVES["TargetLocalization/BasicAttributes/Color"]
    item = ExportItem(leaf=leaf, sample="item000007", images=(ExportImage("jpg", jpg()),),
                      texts={"text_label": "the two red mugs"}, count=2, precise_count=True, count_in_description=True,
                      instances={"masklet_target": [mask(0, 5, 0, 5), mask(10, 20, 10, 20)]})
    files = export_files(item)
    assert [f.path for f in files] == [
        "EPIC_Bench/TargetLocalization/BasicAttributes/Color/item000007/item000007_image.jpg",
        "EPIC_Bench/TargetLocalization/BasicAttributes/Color/item000007/item000007_mask_rle.json",
    ]
    document = json.loads(files[1].data)
    assert document["image_path_saved"] == [files[0].path]
    assert document["text_annotation"] == {"text_label": ["the two red mugs"], "count_target_instance": [2],
                                           "precise_count": [True], "count_in_description": [True]}
    assert [rle.area(r) for r in document["mask_annotation"]["masklet_target"]] == [25, 100]
    write_files(files, tmp_path)
    [sample] = read_layout(tmp_path, LEAVES)
    assert sample.leaf_path == leaf.path and sample.overlay_path is None


def test_vm_item_uses_double_underscore_and_overlay_from_image_a(tmp_path):
    leaf = LEAVES["Navigation/VisualMatching"]
    item = ExportItem(leaf=leaf, sample="v05", images=(ExportImage("jpg", jpg()), ExportImage("jpg", jpg())),
                      count=1, instances={"masklet_reference_area": [mask(0, 10, 0, 10)],
                                          "masklet_matching_area": [mask(5, 15, 5, 15)]})
    files = export_files(item, decoded_first_image=np.zeros((30, 40, 3), np.uint8))
    names = [f.path.rsplit("/", 1)[1] for f in files]
    assert names == ["v05-A_image.jpg", "v05-B_image.jpg", "v05-A_reference_area_overlay.png",
                     "v05-A__v05-B_mask_rle.json"]
    overlay = np.asarray(Image.open(io.BytesIO(files[2].data)))
    assert overlay[5, 5].tolist() != [0, 0, 0] and overlay[25, 35].tolist() == [0, 0, 0]
    write_files(files, tmp_path)
    [sample] = read_layout(tmp_path, LEAVES)
    assert sample.overlay_path.endswith("v05-A_reference_area_overlay.png")


def test_sample_names_cannot_break_the_toolkit_path_rules():
    assert safe_stem("my_image__x/../y") == "my-image-x-..-y".replace("-..-", "-..-")
    assert "_image" not in safe_stem("a_image") and "__" not in safe_stem("a__b")

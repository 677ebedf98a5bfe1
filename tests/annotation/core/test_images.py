import io
import zipfile

import numpy as np
import pytest
from PIL import Image

from annotation.core.images import UploadError, decode_rgb, group_into_items, read_upload


def png(width=20, height=10, colour=(10, 200, 30)):
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), colour).save(buffer, format="PNG")
    return buffer.getvalue()


def zipped(entries):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in entries:
            archive.writestr(name, data)
    return buffer.getvalue()


def test_single_image_is_read_with_size_format_and_hash():
    [image] = read_upload("dir/photo.png", png(), max_pixels=1000)
    assert (image.name, image.width, image.height, image.format, image.extension) == ("photo.png", 20, 10, "PNG", "png")
    assert len(image.sha256) == 64
    assert decode_rgb(image.data)[0, 0].tolist() == [10, 200, 30]


def test_non_image_is_refused_with_its_name():
    with pytest.raises(UploadError, match="notes.txt: not an image"):
        read_upload("notes.txt", b"hello", max_pixels=1000)


def test_image_over_the_pixel_limit_is_refused():
    with pytest.raises(UploadError, match=r"20x10 = 200 pixels, over the limit of 199"):
        read_upload("big.png", png(), max_pixels=199)


def test_truncated_image_is_refused():
    buffer = io.BytesIO()
    noise = np.random.default_rng(0).integers(0, 255, size=(30, 30, 3), dtype=np.uint8)
    Image.fromarray(noise).save(buffer, format="PNG")
    data = buffer.getvalue()
    with pytest.raises(UploadError, match="corrupt or truncated"):
        read_upload("cut.png", data[: len(data) // 2], max_pixels=10_000)


def test_zip_of_images_skips_archiver_junk():
    data = zipped([("a/1.png", png()), ("a/2.png", png()), ("__MACOSX/a/._1.png", b"junk"), (".DS_Store", b"x")])
    images = read_upload("batch.zip", data, max_pixels=1000)
    assert [i.name for i in images] == ["a/1.png", "a/2.png"]


@pytest.mark.parametrize("evil", ["../escape.png", "/etc/passwd.png", "a/../../x.png", "C:/x.png"])
def test_zip_entry_leaving_the_upload_refuses_everything(evil):
    data = zipped([("ok.png", png()), (evil, png())])
    with pytest.raises(UploadError, match="nothing was imported") as info:
        read_upload("batch.zip", data, max_pixels=1000)
    assert evil in str(info.value)


def test_corrupt_zip_and_zip_with_a_non_image_are_refused():
    with pytest.raises(UploadError, match="corrupt zip"):
        read_upload("batch.zip", b"PK\x03\x04 not really a zip", max_pixels=1000)
    with pytest.raises(UploadError, match="batch.zip:readme.txt: not an image"):
        read_upload("batch.zip", zipped([("ok.png", png()), ("readme.txt", b"hi")]), max_pixels=1000)


def test_zip_with_a_bad_crc_is_refused():
    data = bytearray(zipped([("ok.png", png())]))
    # Flip a byte of the stored file body (after the 30-byte local header and the name).
    data[30 + len("ok.png") + 20] ^= 0xFF
    with pytest.raises(UploadError, match="corrupt"):
        read_upload("batch.zip", bytes(data), max_pixels=1000)


def test_visual_matching_items_are_folders_of_two_images():
    images = read_upload("vm.zip", zipped([("p/b.png", png()), ("p/a.png", png()), ("q/a.png", png()),
                                           ("q/b.png", png())]), max_pixels=1000)
    groups = group_into_items(images, images_per_item=2)
    assert [[i.name for i in g] for g in groups] == [["p/a.png", "p/b.png"], ["q/a.png", "q/b.png"]]
    with pytest.raises(UploadError, match="exactly 2 images"):
        group_into_items(images[:3], images_per_item=2)


def exif_jpeg(array: np.ndarray, orientation: int) -> bytes:
    buffer = io.BytesIO()
    exif = Image.Exif()
    exif[0x0112] = orientation
    exif[0x010F] = "TestCam"  # another tag, which stays
    Image.fromarray(array).save(buffer, format="JPEG", quality=95, exif=exif.tobytes())
    return buffer.getvalue()


@pytest.mark.parametrize("orientation, turn", [(6, lambda a: np.rot90(a, -1)), (8, lambda a: np.rot90(a, 1)),
                                               (3, lambda a: np.rot90(a, 2))])
def test_an_exif_rotated_jpeg_is_stored_upright_and_the_upload_kept(orientation, turn):
    stored = np.zeros((30, 40, 3), np.uint8)
    stored[:10, :20] = (250, 20, 20)  # a red block in the stored top-left corner
    data = exif_jpeg(stored, orientation)
    [image] = read_upload("phone.jpg", data, max_pixels=10_000)
    expected = turn(stored)
    assert (image.height, image.width) == expected.shape[:2]
    assert image.original == data and image.format == "JPEG"
    pixels = decode_rgb(image.data)
    assert pixels.shape == expected.shape
    red = pixels[..., 0] > 128
    assert (red == (expected[..., 0] > 128)).mean() > 0.98  # where the browser shows the red block
    with Image.open(io.BytesIO(image.data)) as upright:
        assert upright.getexif().get(0x0112) is None and upright.getexif().get(0x010F) == "TestCam"


def test_an_upright_jpeg_is_stored_as_uploaded():
    data = exif_jpeg(np.full((30, 40, 3), 90, np.uint8), 1)
    [image] = read_upload("flat.jpg", data, max_pixels=10_000)
    assert image.data == data and image.original is None and (image.width, image.height) == (40, 30)

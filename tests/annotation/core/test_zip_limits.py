"""Zip uploads are bounded: declared and actual unpacked sizes per image and in total; corrupt data is refused.

tracemalloc's peak measures what reading an upload cost (zlib's output is Python bytes, so it is counted).
"""
import io
import zipfile

import pytest
from PIL import Image

from annotation.core.images import UploadError, read_upload
from tests.annotation.zip_helpers import MiB, declare_size, flip_data_byte, peak_bytes, zip_with


def png(width=20, height=10):
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), (10, 200, 30)).save(buffer, format="PNG")
    return buffer.getvalue()


def bmp(width=200, height=100):
    """A flat BMP: it compresses well, so its entry has a real deflate (bzip2, lzma) stream to corrupt."""
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), (10, 200, 30)).save(buffer, format="BMP")
    return buffer.getvalue()


@pytest.fixture(scope="module")
def bomb_300mb() -> bytes:
    """A ~300 KB zip holding one 300 MB entry (zeros) after a good image."""
    return zip_with([("ok.png", png())], zeros={"scans/bomb.png": 300 * MiB})


def test_default_limits_refuse_a_300_mb_entry_before_inflating_it(bomb_300mb):
    # given a 300 KB zip whose second entry declares 300 MB (over the default 256 MiB per image)
    assert len(bomb_300mb) < 1 * MiB
    # when it is read with the default limits
    outcome, peak = peak_bytes(lambda: read_upload("bomb.zip", bomb_300mb, max_pixels=40_000_000))
    # then it is refused, naming the entry and its size, having inflated nothing of it
    assert isinstance(outcome, UploadError), outcome
    assert outcome.source == "bomb.zip:scans/bomb.png"
    assert "unpacks to 314572800 bytes, over the limit of 268435456 bytes per image" in outcome.message
    assert peak < 4 * MiB, f"reading the refused zip allocated {peak / MiB:.0f} MiB"


def test_entries_over_the_total_limit_are_refused_before_any_is_inflated():
    # given three 40 MB entries, each under the per-image limit, 120 MB together
    data = zip_with([], zeros={"a.png": 40 * MiB, "b.png": 40 * MiB, "c.png": 40 * MiB})
    # when the zip may unpack to 100 MB at most
    outcome, peak = peak_bytes(lambda: read_upload("three.zip", data, max_pixels=1000, max_bytes=100 * MiB,
                                                   max_image_bytes=64 * MiB))
    # then the third entry, where the sum passes the limit, is named, and nothing was inflated
    assert isinstance(outcome, UploadError), outcome
    assert outcome.source == "three.zip:c.png"
    assert f"the zip unpacks to more than {100 * MiB} bytes" in outcome.message
    assert peak < 4 * MiB, f"reading the refused zip allocated {peak / MiB:.0f} MiB"


def test_an_entry_that_inflates_past_its_declared_size_is_refused_without_inflating_it_whole():
    # given an entry that declares 1,000 bytes but inflates to 64 MB
    data = declare_size(zip_with([], zeros={"liar.png": 64 * MiB}), "liar.png", 1000)
    assert zipfile.ZipFile(io.BytesIO(data)).getinfo("liar.png").file_size == 1000
    # when it is read with a limit of 8 MiB per image
    outcome, peak = peak_bytes(lambda: read_upload("liar.zip", data, max_pixels=1000, max_image_bytes=8 * MiB))
    # then it is refused, naming the entry, and reading never held more than the limit
    assert isinstance(outcome, UploadError), outcome
    assert outcome.source == "liar.zip:liar.png"
    assert "nothing was imported" in outcome.message
    assert peak < 8 * MiB, f"reading the refused zip allocated {peak / MiB:.0f} MiB"


def test_many_images_within_the_limits_are_read():
    data = zip_with([(f"p/{i}.png", png()) for i in range(5)])
    images = read_upload("ok.zip", data, max_pixels=1000, max_bytes=len(png()) * 5, max_image_bytes=len(png()))
    assert [i.name for i in images] == [f"p/{i}.png" for i in range(5)]


def test_a_single_image_over_the_per_image_limit_is_refused():
    size = len(png())
    with pytest.raises(UploadError, match=f"photo.png: the file is {size} bytes, over the limit of {size - 1} bytes"):
        read_upload("photo.png", png(), max_pixels=1000, max_image_bytes=size - 1)


# Where one flipped byte makes the decompressor itself fail (zlib.error, OSError, LZMAError) rather than the CRC:
# the first byte of a deflate or bzip2 stream; for lzma the first after zipfile's 4-byte header and 5 properties.
@pytest.mark.parametrize("method, at", [(zipfile.ZIP_DEFLATED, 0), (zipfile.ZIP_BZIP2, 0), (zipfile.ZIP_LZMA, 9)],
                         ids=["deflate", "bzip2", "lzma"])
def test_corrupt_compressed_data_is_refused_naming_the_entry(method, at):
    # given a zip whose second entry has one flipped byte in its compressed data
    data = flip_data_byte(zip_with([("ok.png", png()), ("scans/flat.bmp", bmp())], method=method),
                          "scans/flat.bmp", at)
    # when it is read, then it is refused as a corrupt entry, by name (not a zlib/lzma/bz2 error escaping)
    with pytest.raises(UploadError) as info:
        read_upload("batch.zip", data, max_pixels=100_000)
    assert info.value.source == "batch.zip:scans/flat.bmp"
    assert info.value.message.startswith("corrupt zip entry")
    assert "nothing was imported" in info.value.message


def test_a_zip_is_read_from_a_file_without_reading_the_file_whole(tmp_path):
    # given a zip on disk with a 30 MB archiver entry (skipped, never read) and one image
    path = tmp_path / "upload.zip"
    path.write_bytes(zip_with([("a/1.png", png()), ("__MACOSX/a/._big", bytes(30 * MiB))],
                              method=zipfile.ZIP_STORED))
    # when it is read from the open file
    with path.open("rb") as upload:
        outcome, peak = peak_bytes(lambda: read_upload("upload.zip", upload, max_pixels=1000))
    # then the image is read and the file was not loaded into memory
    assert [i.name for i in outcome] == ["a/1.png"]
    assert peak < 4 * MiB, f"reading the zip from its file allocated {peak / MiB:.0f} MiB"


def test_a_single_image_is_read_from_a_file(tmp_path):
    path = tmp_path / "photo.png"
    path.write_bytes(png())
    with path.open("rb") as upload:
        [image] = read_upload("photo.png", upload, max_pixels=1000)
    assert (image.name, image.width, image.data) == ("photo.png", 20, png())

"""Checking uploaded images and zips before anything is stored; decoding images to RGB arrays.

Rules: an upload is read completely and every file checked first (format, pixel limit, zip paths, CRCs);
any bad entry rejects the whole upload with `UploadError(source, message)`, so nothing is half-imported.
Zip entries whose path would leave the upload (absolute, "..", drive letters, links) are refused.
"""
from __future__ import annotations

import hashlib
import io
import posixpath
import stat
import warnings
import zipfile
from dataclasses import dataclass

import numpy as np
from PIL import Image, UnidentifiedImageError

ALLOWED_FORMATS = {"JPEG": "jpg", "PNG": "png", "WEBP": "webp", "BMP": "bmp"}
# Entries that archivers add and that are never part of the data.
_JUNK_PARTS = ("__MACOSX",)
_JUNK_NAMES = (".DS_Store", "Thumbs.db", "desktop.ini")


class UploadError(ValueError):
    def __init__(self, source: str, message: str) -> None:
        super().__init__(f"{source}: {message}")
        self.source = source
        self.message = message


@dataclass(frozen=True)
class ImageFile:
    name: str  # the file name, or the entry path inside the zip
    data: bytes
    width: int
    height: int
    format: str  # PIL format name, e.g. "JPEG"
    sha256: str

    @property
    def extension(self) -> str:
        return ALLOWED_FORMATS[self.format]

    @property
    def folder(self) -> str:
        return posixpath.dirname(self.name)


def read_image(name: str, data: bytes, *, max_pixels: int) -> ImageFile:
    """Check one image file: a known format, within the pixel limit, and fully decodable."""
    if not data:
        raise UploadError(name, "the file is empty")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as probe:
                width, height = probe.size
                image_format = probe.format or ""
                if width * height > max_pixels:
                    raise UploadError(
                        name, f"image is {width}x{height} = {width * height} pixels, over the limit of {max_pixels}"
                    )
                if image_format not in ALLOWED_FORMATS:
                    raise UploadError(
                        name, f"image format {image_format or 'unknown'} is not accepted; use JPEG, PNG, WEBP or BMP"
                    )
                probe.load()  # a truncated or corrupt file fails here, not later in the editor
    except UploadError:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise UploadError(name, f"image is over the pixel limit of {max_pixels}") from None
    except UnidentifiedImageError:
        raise UploadError(name, "not an image (the content is not a JPEG, PNG, WEBP or BMP file)") from None
    except (OSError, SyntaxError, ValueError) as exc:
        raise UploadError(name, f"image is corrupt or truncated: {exc}") from None
    if width < 1 or height < 1:
        raise UploadError(name, f"image has no pixels ({width}x{height})")
    return ImageFile(name, data, width, height, image_format, hashlib.sha256(data).hexdigest())


def _entry_problem(info: zipfile.ZipInfo) -> str | None:
    name = info.filename
    if "\\" in name:
        return "uses backslashes in its path"
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        return "has an absolute path, outside the upload"
    parts = name.split("/")
    if ".." in parts:
        return "has a path outside the upload (..)"
    mode = info.external_attr >> 16
    if mode and stat.S_ISLNK(mode):
        return "is a symbolic link"
    return None


def read_zip(name: str, data: bytes, *, max_pixels: int, max_files: int = 2000, max_bytes: int = 2 << 30) -> list[ImageFile]:
    """Every image in a zip, checked; junk entries from archivers are skipped, anything else is refused."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError) as exc:
        raise UploadError(name, f"corrupt zip: {exc}") from None
    images: list[ImageFile] = []
    total = 0
    with archive:
        infos = archive.infolist()
        for info in infos:
            problem = _entry_problem(info)
            if problem:
                raise UploadError(f"{name}:{info.filename}", f"zip entry {problem}; nothing was imported")
        for info in infos:
            entry = f"{name}:{info.filename}"
            if info.is_dir():
                continue
            parts = info.filename.split("/")
            if any(p in _JUNK_PARTS for p in parts) or parts[-1] in _JUNK_NAMES or parts[-1].startswith("._"):
                continue
            total += info.file_size
            if total > max_bytes:
                raise UploadError(entry, f"the zip unpacks to more than {max_bytes} bytes")
            if len(images) >= max_files:
                raise UploadError(name, f"the zip holds more than {max_files} images")
            try:
                content = archive.read(info)
            except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError, RuntimeError) as exc:
                raise UploadError(entry, f"corrupt zip entry: {exc}") from None
            try:
                images.append(read_image(info.filename, content, max_pixels=max_pixels))
            except UploadError as exc:
                raise UploadError(entry, f"{exc.message}; nothing was imported") from None
    if not images:
        raise UploadError(name, "the zip holds no images")
    return images


def read_upload(name: str, data: bytes, *, max_pixels: int, max_files: int = 2000) -> list[ImageFile]:
    """One uploaded file: a zip of images or a single image."""
    if data[:4] in (b"PK\x03\x04", b"PK\x05\x06") or name.lower().endswith(".zip"):
        return read_zip(name, data, max_pixels=max_pixels, max_files=max_files)
    return [read_image(posixpath.basename(name.replace("\\", "/")) or "upload", data, max_pixels=max_pixels)]


def group_into_items(images: list[ImageFile], *, images_per_item: int) -> list[list[ImageFile]]:
    """One image per item, or (VisualMatching) one item per folder holding exactly that many images."""
    if images_per_item == 1:
        return [[image] for image in images]
    by_folder: dict[str, list[ImageFile]] = {}
    for image in images:
        by_folder.setdefault(image.folder, []).append(image)
    groups: list[list[ImageFile]] = []
    for folder in sorted(by_folder):
        members = sorted(by_folder[folder], key=lambda i: i.name)
        if len(members) != images_per_item:
            raise UploadError(
                folder or "(top level)",
                f"each folder must hold exactly {images_per_item} images (A then B by name), found {len(members)}",
            )
        groups.append(members)
    return groups


def decode_rgb(data: bytes) -> np.ndarray:
    """Image bytes -> RGB uint8 (H, W, 3), with EXIF orientation left as stored (masks follow the pixels)."""
    with Image.open(io.BytesIO(data)) as image:
        return np.asarray(image.convert("RGB"), dtype=np.uint8).copy()

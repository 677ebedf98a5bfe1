"""Checking uploaded images and zips before anything is stored; decoding images to RGB arrays.

Rules: an upload is read completely and every file checked first (format, pixel limit, zip paths, CRCs);
any bad entry rejects the whole upload with `UploadError(source, message)`, so nothing is half-imported.
Zip entries whose path would leave the upload (absolute, "..", drive letters, links) are refused. Unpacked sizes
are bounded per image and in total, as declared before anything is inflated and as counted while inflating; the
pixels of a zip's images are bounded in total, as their headers declare before any is decoded. A zip's images are
decoded one at a time, and each checked file is appended to one temporary file of the upload (in memory up to
1 MiB), so an upload never holds more than one image's pixels and bytes in memory, nor one open file per image.
"""
from __future__ import annotations

import dataclasses
import hashlib
import io
import lzma
import posixpath
import stat
import tempfile
import warnings
import zipfile
import zlib
from dataclasses import dataclass
from typing import IO

import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

ALLOWED_FORMATS = {"JPEG": "jpg", "PNG": "png", "WEBP": "webp", "BMP": "bmp"}
# Entries that archivers add and that are never part of the data.
_JUNK_PARTS = ("__MACOSX",)
_JUNK_NAMES = (".DS_Store", "Thumbs.db", "desktop.ini")
# The defaults of the SAM_UPLOAD_MAX_BYTES and SAM_UPLOAD_MAX_IMAGE_BYTES settings. An image within the default
# pixel limit (40 M) is at most 160 MB even as an uncompressed 32-bit BMP.
DEFAULT_MAX_BYTES = 1 << 30
DEFAULT_MAX_IMAGE_BYTES = 256 << 20
# The default of SAM_UPLOAD_MAX_TOTAL_PIXELS: the decoded pixels of all a zip's images together (20 photos of 12 MP,
# 800 frames of 640x480; 750 MB as 24-bit BMPs).
DEFAULT_MAX_TOTAL_PIXELS = 250_000_000
_CHUNK = 1 << 20
# A zip's checked files stay in memory up to this size in all, then move to a temporary file on disk.
_SPOOL_IN_MEMORY = 1 << 20
# What reading a damaged entry raises: the archive's own checks (CRC, truncation, encryption, unknown method)
# and each decompressor's error (zlib.error for deflate, OSError for bzip2, LZMAError for lzma).
_CORRUPT_ENTRY_ERRORS = (
    zipfile.BadZipFile, OSError, EOFError, NotImplementedError, RuntimeError, zlib.error, lzma.LZMAError,
)

# An upload's content: its bytes, or a seekable binary file holding them (so an upload that Django spooled to
# disk is read from there rather than copied into memory whole).
Upload = bytes | IO[bytes]


class UploadError(ValueError):
    def __init__(self, source: str, message: str) -> None:
        super().__init__(f"{source}: {message}")
        self.source = source
        self.message = message


@dataclass(frozen=True)
class Kept:
    """A checked file's bytes at an offset of the temporary file that one upload's images share."""

    file: IO[bytes]
    offset: int
    size: int

    def read(self) -> bytes:
        self.file.seek(self.offset)
        return self.file.read(self.size)


@dataclass(frozen=True)
class ImageFile:
    name: str  # the file name, or the entry path inside the zip
    content: bytes | Kept  # the file to store (a zip's images are kept on disk until stored: see `data`)
    width: int
    height: int
    format: str  # PIL format name, e.g. "JPEG"
    sha256: str
    # The file as uploaded when `content` is a re-encoding of it (an EXIF orientation other than 1 made upright).
    original_content: bytes | Kept | None = None

    @property
    def data(self) -> bytes:
        return self.content if isinstance(self.content, bytes) else self.content.read()

    @property
    def original(self) -> bytes | None:
        content = self.original_content
        return content if content is None or isinstance(content, bytes) else content.read()

    @property
    def extension(self) -> str:
        return ALLOWED_FORMATS[self.format]

    @property
    def folder(self) -> str:
        return posixpath.dirname(self.name)


def _check_header(name: str, probe: Image.Image, *, max_pixels: int) -> tuple[int, int, str]:
    """An opened (not decoded) image's size and format, within the pixel limit and of a known format."""
    width, height = probe.size
    image_format = probe.format or ""
    if width * height > max_pixels:
        raise UploadError(name, f"image is {width}x{height} = {width * height} pixels, over the limit of {max_pixels}")
    if image_format not in ALLOWED_FORMATS:
        raise UploadError(name, f"image format {image_format or 'unknown'} is not accepted; use JPEG, PNG, WEBP or BMP")
    return width, height, image_format


def read_image(name: str, data: bytes, *, max_pixels: int) -> ImageFile:
    """Check one image file: a known format, within the pixel limit, and fully decodable."""
    if not data:
        raise UploadError(name, "the file is empty")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as probe:
                width, height, image_format = _check_header(name, probe, max_pixels=max_pixels)
                probe.load()  # a truncated or corrupt file fails here, not later in the editor
                orientation = probe.getexif().get(EXIF_ORIENTATION, 1)
                upright = upright_bytes(probe, image_format) if orientation not in (1, None) else None
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
    if upright is not None:
        pixels, (width, height) = upright
        return ImageFile(name, pixels, width, height, image_format, hashlib.sha256(pixels).hexdigest(),
                         original_content=data)
    return ImageFile(name, data, width, height, image_format, hashlib.sha256(data).hexdigest())


def _keep(store: IO[bytes], image: ImageFile) -> ImageFile:
    """The checked image with its bytes appended to the upload's temporary file instead of held in memory."""

    def put(data: bytes | Kept) -> Kept:
        if not isinstance(data, bytes):
            return data
        offset = store.seek(0, io.SEEK_END)
        store.write(data)
        return Kept(store, offset, len(data))

    original = image.original_content
    return dataclasses.replace(image, content=put(image.content),
                               original_content=None if original is None else put(original))


EXIF_ORIENTATION = 0x0112


def upright_bytes(image: Image.Image, image_format: str) -> tuple[bytes, tuple[int, int]]:
    """The image turned as its EXIF orientation says, re-encoded in its format without the tag; and its size.

    Browsers draw a JPEG turned by its EXIF orientation while masks index the stored pixels: storing the upright
    pixels makes both agree (the file as uploaded is kept beside it)."""
    turned = ImageOps.exif_transpose(image)
    buffer = io.BytesIO()
    options: dict = {"quality": 95, "subsampling": 0} if image_format == "JPEG" else {}
    if image_format == "WEBP":
        options = {"quality": 95}
    exif = turned.getexif()
    exif.pop(EXIF_ORIENTATION, None)
    if image_format in ("JPEG", "WEBP", "PNG") and len(exif):
        options["exif"] = exif.tobytes()
    turned.save(buffer, format=image_format, **options)
    return buffer.getvalue(), turned.size


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


def _is_junk(path: str) -> bool:
    parts = path.split("/")
    return any(p in _JUNK_PARTS for p in parts) or parts[-1] in _JUNK_NAMES or parts[-1].startswith("._")


def _as_file(upload: Upload) -> IO[bytes]:
    file = io.BytesIO(upload) if isinstance(upload, bytes) else upload  # BytesIO shares the bytes, no copy
    file.seek(0)
    return file


def upload_size(upload: Upload) -> int:
    """The upload's size in bytes, without reading it."""
    if isinstance(upload, bytes):
        return len(upload)
    size = upload.seek(0, io.SEEK_END)
    upload.seek(0)
    return size


def _inflate(archive: zipfile.ZipFile, info: zipfile.ZipInfo, entry: str, *, max_image_bytes: int,
             room_left: int, max_bytes: int) -> bytes:
    """The entry's bytes, read in chunks and counted: refused as soon as a limit would be passed, whatever the
    header declared (zipfile stops at the declared size today; the count does not depend on it)."""
    content = io.BytesIO()
    try:
        with archive.open(info) as stream:
            while chunk := stream.read(_CHUNK):
                size = content.tell() + len(chunk)
                if size > max_image_bytes:
                    raise UploadError(entry, f"the entry unpacks to more than {max_image_bytes} bytes, over the "
                                             f"limit per image (its header declares {info.file_size}); nothing "
                                             "was imported")
                if size > room_left:
                    raise UploadError(entry, f"the zip unpacks to more than {max_bytes} bytes (the limit for one "
                                             "upload); nothing was imported")
                content.write(chunk)
    except _CORRUPT_ENTRY_ERRORS as exc:
        raise UploadError(entry, f"corrupt zip entry: {exc}; nothing was imported") from None
    return content.getvalue()  # hands over the buffer, no copy


def _declared_pixels(archive: zipfile.ZipFile, info: zipfile.ZipInfo, entry: str, *, max_pixels: int) -> int:
    """The pixels the entry's image header declares, read without decoding it (Pillow opens lazily: only the
    header is inflated). An entry whose header cannot be read counts 0 here: decoding it fails next, with the
    same cause (its bytes, or its zip data) and the message of every other upload."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with archive.open(info) as stream, Image.open(stream) as probe:
                width, height, _ = _check_header(entry, probe, max_pixels=max_pixels)
    except UploadError as exc:
        raise UploadError(entry, f"{exc.message}; nothing was imported") from None
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise UploadError(entry, f"image is over the pixel limit of {max_pixels}; nothing was imported") from None
    except (*_CORRUPT_ENTRY_ERRORS, SyntaxError, ValueError):
        return 0
    return width * height


def read_zip(name: str, upload: Upload, *, max_pixels: int, max_files: int = 2000,
             max_bytes: int = DEFAULT_MAX_BYTES, max_image_bytes: int = DEFAULT_MAX_IMAGE_BYTES,
             max_total_pixels: int = DEFAULT_MAX_TOTAL_PIXELS) -> list[ImageFile]:
    """Every image in a zip, checked; junk entries from archivers are skipped, anything else is refused.

    The entry list is checked whole before anything is inflated: paths, the number of images, and the sizes the
    zip declares (each at most `max_image_bytes`, together at most `max_bytes`). Then every image's header is read
    (each at most `max_pixels`, together at most `max_total_pixels`) before any image is decoded. Each entry is
    then inflated in chunks against the same limits, so a header that understates a size gains nothing, and
    decoded, one at a time.
    """
    try:
        archive = zipfile.ZipFile(_as_file(upload))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError) as exc:
        raise UploadError(name, f"corrupt zip: {exc}") from None
    images: list[ImageFile] = []
    with archive:
        infos = archive.infolist()
        for info in infos:
            problem = _entry_problem(info)
            if problem:
                raise UploadError(f"{name}:{info.filename}", f"zip entry {problem}; nothing was imported")
        members = [info for info in infos if not info.is_dir() and not _is_junk(info.filename)]
        if len(members) > max_files:
            raise UploadError(name, f"the zip holds more than {max_files} images")
        declared = 0
        for info in members:
            entry = f"{name}:{info.filename}"
            if info.file_size > max_image_bytes:
                raise UploadError(entry, f"the entry unpacks to {info.file_size} bytes, over the limit of "
                                         f"{max_image_bytes} bytes per image; nothing was imported")
            declared += info.file_size
            if declared > max_bytes:
                raise UploadError(entry, f"the zip unpacks to more than {max_bytes} bytes (the limit for one "
                                         "upload); nothing was imported")
        pixels = sum(_declared_pixels(archive, info, f"{name}:{info.filename}", max_pixels=max_pixels)
                     for info in members)
        if pixels > max_total_pixels:
            raise UploadError(name, f"the zip's {len(members)} images hold {pixels:,} pixels in total, over the limit "
                                    f"of {max_total_pixels:,} pixels for one upload; nothing was imported")
        # One file for all the checked images (kept open by them until they are stored), in memory while small.
        store = tempfile.SpooledTemporaryFile(max_size=_SPOOL_IN_MEMORY)
        inflated = 0
        for info in members:
            entry = f"{name}:{info.filename}"
            content = _inflate(archive, info, entry, max_image_bytes=max_image_bytes,
                               room_left=max_bytes - inflated, max_bytes=max_bytes)
            inflated += len(content)
            try:
                images.append(_keep(store, read_image(info.filename, content, max_pixels=max_pixels)))
            except UploadError as exc:
                raise UploadError(entry, f"{exc.message}; nothing was imported") from None
            del content  # the next entry is inflated with this one's bytes released
    if not images:
        raise UploadError(name, "the zip holds no images")
    return images


def read_upload(name: str, upload: Upload, *, max_pixels: int, max_files: int = 2000,
                max_bytes: int = DEFAULT_MAX_BYTES, max_image_bytes: int = DEFAULT_MAX_IMAGE_BYTES,
                max_total_pixels: int = DEFAULT_MAX_TOTAL_PIXELS) -> list[ImageFile]:
    """One uploaded file (its bytes or a seekable file): a zip of images or a single image."""
    file = _as_file(upload)
    is_zip = file.read(4) in (b"PK\x03\x04", b"PK\x05\x06")
    if is_zip or name.lower().endswith(".zip"):
        return read_zip(name, file, max_pixels=max_pixels, max_files=max_files, max_bytes=max_bytes,
                        max_image_bytes=max_image_bytes, max_total_pixels=max_total_pixels)
    filename = posixpath.basename(name.replace("\\", "/")) or "upload"
    size = upload_size(file)
    if size > max_image_bytes:
        raise UploadError(filename, f"the file is {size} bytes, over the limit of {max_image_bytes} bytes per image")
    return [read_image(filename, file.read(), max_pixels=max_pixels)]


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
    """Image bytes -> RGB uint8 (H, W, 3) as stored (uploads are stored upright: see `upright_bytes`)."""
    with Image.open(io.BytesIO(data)) as image:
        return np.asarray(image.convert("RGB"), dtype=np.uint8).copy()

// Reads a local image for `--image`: its media type from the extension, its bytes as base64. Node side (file I/O).
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { ImagePart } from '../config/request';
import { UsageError } from './cli-errors';

type ImageMediaType = NonNullable<ImagePart['mediaType']>;

/** The media type each extension names; these four are what every provider kind accepts inline. */
const MEDIA_TYPE_BY_EXTENSION: Readonly<Record<string, ImageMediaType>> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
};

/**
 * The leading bytes of each format. Checked here because providers refuse an image whose bytes do not match its
 * media type (a renamed file) only after the call has started and reserved its budget.
 */
const LOOKS_LIKE: Readonly<Record<ImageMediaType, (bytes: Buffer) => boolean>> = {
  'image/png': (bytes) =>
    bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  'image/jpeg': (bytes) => bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff,
  'image/gif': (bytes) => ['GIF87a', 'GIF89a'].includes(bytes.subarray(0, 6).toString('latin1')),
  'image/webp': (bytes) =>
    bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP',
};

/** The image at `file` as an inline image part; a usage error naming `--image` and the file when it cannot be. */
export async function readImage(file: string): Promise<ImagePart> {
  const extension = path.extname(file).toLowerCase();
  const mediaType = MEDIA_TYPE_BY_EXTENSION[extension];
  if (mediaType === undefined) {
    throw new UsageError(
      `--image ${file}: the media type is read from the extension, which must be .png, .jpg, .jpeg, .gif or .webp`,
    );
  }
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    throw new UsageError(
      `--image cannot be read: ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    );
  }
  if (!LOOKS_LIKE[mediaType](bytes)) {
    throw new UsageError(
      `--image ${file}: the file is not a ${extension.slice(1).toUpperCase()} image (its first bytes are not that format's)`,
    );
  }
  return { type: 'image', data: bytes.toString('base64'), mediaType };
}

// OpenAI Responses `input_image` and `input_file` parts → neutral image and document parts. Node side.
import { z } from 'zod';
import type { DocumentPart, ImagePart } from '../config/request';
import { imageOfUrl, pdfOfDataUrl } from './openai-parse-messages';
import { checkField, fieldPath, invalidField } from './parse-body';

const InputImageSchema = z.strictObject({
  type: z.literal('input_image'),
  image_url: z.string().nullish(),
  file_id: z.string().nullish(),
  // "original" (no downscaling) exists at OpenAI only and costs more there; every other target has no such hint.
  detail: z.enum(['auto', 'low', 'high'], { error: 'detail is "auto", "low" or "high"' }).nullish(),
});

const InputFileSchema = z.strictObject({
  type: z.literal('input_file'),
  file_data: z.string().nullish(),
  file_id: z.string().nullish(),
  file_url: z.string().nullish(),
  filename: z.string().max(512).nullish(),
});

const FILE_ID_REFUSAL = 'a file id names a file stored at one provider account and cannot be routed';

export function imagePartOf(raw: unknown, path: string): ImagePart {
  const image = checkField(InputImageSchema, raw, path);
  if (image.file_id !== undefined && image.file_id !== null) {
    throw invalidField(fieldPath(path, 'file_id'), `${FILE_ID_REFUSAL}; send image_url`);
  }
  const urlPath = fieldPath(path, 'image_url');
  if (image.image_url === undefined || image.image_url === null) {
    throw invalidField(urlPath, 'an input_image needs its image_url');
  }
  return imageOfUrl(image.image_url, urlPath, image.detail ?? undefined);
}

export function documentPartOf(raw: unknown, path: string): DocumentPart {
  const file = checkField(InputFileSchema, raw, path);
  if (file.file_id !== undefined && file.file_id !== null) {
    throw invalidField(fieldPath(path, 'file_id'), `${FILE_ID_REFUSAL}; send file_data`);
  }
  if (file.file_url !== undefined && file.file_url !== null) {
    throw invalidField(
      fieldPath(path, 'file_url'),
      'a file url cannot be routed (not every provider fetches files); send file_data',
    );
  }
  const dataPath = fieldPath(path, 'file_data');
  if (file.file_data === undefined || file.file_data === null) {
    throw invalidField(dataPath, 'an input_file needs its file_data');
  }
  return pdfOfDataUrl(file.file_data, dataPath, file.filename ?? undefined);
}

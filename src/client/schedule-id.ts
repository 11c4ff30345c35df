// Schedule ids as the API accepts them. Node side.
import { z } from 'zod';
import { ScheduleIdSchema } from '../config/schedule';
import { InvalidRequestError } from './errors';

/** `id` if it is a valid schedule id; else an {@link InvalidRequestError} naming `id`. */
export function validScheduleId(id: string): string {
  const parsed = ScheduleIdSchema.safeParse(id);
  if (!parsed.success)
    throw new InvalidRequestError(`Invalid schedule id:\n${z.prettifyError(parsed.error)}`, 'id');
  return parsed.data;
}

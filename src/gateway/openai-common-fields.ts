// Wire fields both OpenAI surfaces (Chat Completions and Responses) take the same way. Node side, pure.
import { z } from 'zod';

/** `auto` and `default` leave the tier to the provider account; any other tier changes the price. */
export const ServiceTierSchema = z
  .string()
  .refine(
    (tier) => tier === 'auto' || tier === 'default',
    'a service tier changes the price and cannot be routed; only "auto" and "default" are accepted',
  )
  .nullish();

/** Why the ignored fields the two surfaces share are safe to ignore. */
export const OPENAI_SHARED_IGNORED_FIELDS = {
  user: 'an end-user id for abuse detection; the gateway key already names the caller',
  safety_identifier: 'an end-user id for abuse detection; the gateway key already names the caller',
  prompt_cache_key: "a hint for OpenAI's cache routing; it changes no answer",
  service_tier: '"auto" and "default" both leave the tier to the provider account (other tiers are refused)',
} as const;

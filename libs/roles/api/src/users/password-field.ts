import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '@lanner/auth';
import { z } from 'zod';

/**
 * A new password in a body. Its length is checked by @lanner/auth (a short one
 * answers 400 naming the field); the bounds are documented from the same constants.
 */
export const newPasswordField = () =>
  z.string().meta({
    minLength: MIN_PASSWORD_LENGTH,
    maxLength: MAX_PASSWORD_LENGTH,
    description: 'Stored only as its argon2id hash',
  });

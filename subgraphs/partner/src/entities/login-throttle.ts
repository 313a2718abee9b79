import { DateTimeType, EntitySchema } from '@mikro-orm/core';

/** Failed sign-ins of one subject (`account:<e-mail>` or `address:<client address>`) in the current window. */
export interface LoginThrottle {
  subject: string;
  failures: number;
  windowStartedAt: Date;
  lockedUntil: Date | null;
}

export const LoginThrottleEntity = new EntitySchema<LoginThrottle>({
  name: 'LoginThrottle',
  tableName: 'partner_login_throttle',
  properties: {
    subject: { type: 'string', primary: true },
    failures: { type: 'integer' },
    windowStartedAt: { type: DateTimeType },
    lockedUntil: { type: DateTimeType, nullable: true },
  },
});

/** The operator partner that platform-operated credentials belong to. Reserved: never assigned otherwise. */
export const OPERATOR_PARTNER_GPID = 'CMS-00000000';

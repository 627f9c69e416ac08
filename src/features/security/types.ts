/**
 * Account security state (spec 2.7) and the pending one-time codes (CONTRACT "Verification codes").
 */

export type CodeType = 'email' | 'sms' | 'totp';
export const CODE_TYPES: readonly CodeType[] = ['email', 'sms', 'totp'];
/** Where a pending code is kept: a client-requested type, or the sign-in code of the login page. */
export type CodeSlot = CodeType | 'sign-in';

export interface TrustedDevice {
  id: string;
  name: string;
  last_used: string;
}

/** What GET /v1/security/status answers. */
export interface SecurityStatus {
  email_verified: boolean;
  phone_verified: boolean;
  two_factor_enabled: boolean;
  /** `totp` once enabled; null while 2FA is off. */
  two_factor_method: string | null;
  login_alerts_enabled: boolean;
  trusted_devices: TrustedDevice[];
  /** Unspent recovery codes of the current set (0 without a set). */
  recovery_codes_remaining: number;
}

/** The stored state: the status plus what backs it. */
export interface SecurityState extends Omit<SecurityStatus, 'recovery_codes_remaining'> {
  email?: string;
  phone?: string;
  /** Base32 TOTP secret of the enabled second factor. */
  totp_secret?: string;
  /** Last accepted TOTP time step: a code is not accepted twice. */
  totp_last_step?: number;
  /** sha256 of each trusted device's cookie secret, by device id (devices.ts). */
  device_secrets?: Record<string, string>;
  /** The credentials the trusted devices were trusted under, as a digest (devices.ts `credentialStamp`). */
  devices_stamp?: string;
  /** `sha256:<hex>` of each recovery code of the current set, spent ones included (recovery-codes.ts). */
  recovery_codes?: string[];
  /** Addresses of recent verified sign-ins, newest first (login alerts). */
  known_addresses?: string[];
}

/** A code sent and not yet used; only a salted hash of email/SMS codes is kept. */
export interface PendingCode {
  id: string;
  type: CodeSlot;
  recipient: string;
  /** sha256(salt + code), hex; absent for TOTP enrolment. */
  hash?: string;
  salt?: string;
  /** TOTP enrolment: the secret being enrolled. */
  secret?: string;
  sent_at: number;
  expires_at: number;
}

/** Verification result (spec 2.7). */
export interface VerificationResult {
  success: boolean;
  verified: boolean;
  expires_at?: string;
}

/**
 * Delivery of codes: email through nodemailer (config `smtp: {url, from}`), SMS through the
 * configured webhook (`sms.webhook_url`, JSON `{"to","message"}`).
 */
import type { Transporter } from 'nodemailer';
import type { GatewayConfig } from '../../config/types.ts';
import { emailTexts } from '../../i18n/emails.ts';
import type { Language } from '../../i18n/language.ts';
import { serviceUnavailable } from '../../kernel/errors.ts';
import type { Logger } from '../../pipeline/types.ts';

const SEND_TIMEOUT_MS = 10_000;

/** Sends codes; keeps one SMTP transport per URL (config reloads may change it). */
export function createDelivery(logger: Logger) {
  const transports = new Map<string, Transporter>();

  /** nodemailer is loaded with the first mail, not at start. */
  async function transport(url: string): Promise<Transporter> {
    let found = transports.get(url);
    if (!found) {
      const { default: nodemailer } = await import('nodemailer');
      found = transports.get(url) ?? nodemailer.createTransport(url, { connectionTimeout: SEND_TIMEOUT_MS, socketTimeout: SEND_TIMEOUT_MS } as never);
      transports.set(url, found);
    }
    return found;
  }

  return {
    /** Sends one plain-text mail through `smtp`; 503 when it is not configured or the send fails. */
    async mail(config: GatewayConfig, to: string, subject: string, text: string): Promise<void> {
      if (!config.smtp) throw serviceUnavailable('Email codes are not available: configure smtp {url, from} in gateway.yaml.', 'email_not_configured');
      try {
        await (await transport(config.smtp.url)).sendMail({ from: config.smtp.from, to, subject, text });
      } catch (error) {
        logger.warn('security email failed', { error: (error as Error).message });
        throw serviceUnavailable('The verification email could not be sent. Try again later.', 'delivery_failed');
      }
    },

    /** A verification code, in `language`. */
    email(config: GatewayConfig, to: string, code: string, minutes: number, language: Language): Promise<void> {
      const texts = emailTexts(language);
      return this.mail(config, to, texts.codeSubject, texts.codeText(code, minutes));
    },

    async sms(config: GatewayConfig, to: string, code: string, minutes: number, language: Language): Promise<void> {
      if (!config.sms) throw serviceUnavailable('SMS codes are not available: configure sms {webhook_url} in gateway.yaml.', 'sms_not_configured');
      let ok = false;
      try {
        const response = await fetch(config.sms.webhook_url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ to, message: emailTexts(language).codeSms(code, minutes) }),
          signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
        });
        ok = response.ok;
        await response.body?.cancel();
      } catch (error) {
        logger.warn('verification sms failed', { error: (error as Error).message });
      }
      if (!ok) throw serviceUnavailable('The verification SMS could not be sent. Try again later.', 'delivery_failed');
    },

    close() {
      for (const t of transports.values()) t.close();
      transports.clear();
    },
  };
}

export type Delivery = ReturnType<typeof createDelivery>;

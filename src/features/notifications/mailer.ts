/**
 * Outgoing mail over the configured SMTP transport (`smtp: {url, from}`, CONTRACT). `url` is
 * an `smtp://` or `smtps://` URL (user and password in it when needed); `json:` keeps messages
 * in memory instead (`sent`), for development.
 */
import type { Transporter } from 'nodemailer';
import { lazily } from '../../kernel/lazily.ts';

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
  /** Messages kept by the `json:` transport (empty for SMTP). */
  readonly sent: Mail[];
  close(): void;
}

export function createMailer(smtp: { url: string; from: string }): Mailer {
  const sent: Mail[] = [];
  const memory = smtp.url === 'json:' || smtp.url.startsWith('json:');
  // nodemailer is loaded with the first mail, not at start.
  let transport: Transporter | undefined;
  const opened = lazily(async (): Promise<Transporter> => {
    const { default: nodemailer } = await import('nodemailer');
    return (transport = memory ? nodemailer.createTransport({ jsonTransport: true }) : nodemailer.createTransport(smtp.url));
  });
  return {
    sent,
    async send(mail) {
      await (await opened()).sendMail({ from: smtp.from, to: mail.to, subject: mail.subject, text: mail.text });
      if (memory) sent.push(mail);
    },
    close() {
      transport?.close();
    },
  };
}

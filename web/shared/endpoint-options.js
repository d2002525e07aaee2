// An endpoint's delivery options as one line of text each, for the console and the portal. The
// text lands in the page through h(), as text: a filter's values are the company's own input.

/** An endpoint's own retry schedule: `3 attempts: retries after 30 s and 2 min`. */
export function describeSchedule(seconds) {
  if (seconds.length === 0) return '1 attempt, no retry';
  const span = (s) => (s % 3600 === 0 ? `${s / 3600} h` : s % 60 === 0 ? `${s / 60} min` : `${s} s`);
  return `${seconds.length + 1} attempts: retries after ${seconds.map(span).join(', ')}`;
}

const OPERATORS = { eq: '=', ne: '≠', gt: '>', gte: '≥', lt: '<', lte: '≤', in: 'in' };

/** A payload filter as one line of text: `object.direction = "incoming" and (object.channel_id in [3,4] or object.urgent exists)`. */
export function describeFilter(filter, nested = false) {
  const list = filter.and ?? filter.or;
  if (list !== undefined) {
    const text = list.map((part) => describeFilter(part, true)).join(filter.and ? ' and ' : ' or ');
    return nested && list.length > 1 ? `(${text})` : text;
  }
  if (filter.op === 'exists') return `${filter.path} ${filter.value === false ? 'is absent' : 'exists'}`;
  return `${filter.path} ${OPERATORS[filter.op] ?? filter.op} ${JSON.stringify(filter.value)}`;
}

/**
 * A broker endpoint's settings as [term, text] pairs, credentials never among them (the API does
 * not answer them); none for a webhook endpoint, whose URL says it all.
 */
export function describeDestination(endpoint) {
  const { kafka, rabbitmq, sqs } = endpoint;
  if (kafka) {
    return [
      ['Brokers', kafka.brokers.join(', ')],
      ['Topic', kafka.topic],
      ['SASL', kafka.sasl ? kafka.sasl.mechanism : 'none'],
      ['TLS', describeTls(kafka.tls)],
    ];
  }
  if (rabbitmq) {
    return [
      ['Exchange', rabbitmq.exchange === '' ? '(the default exchange)' : rabbitmq.exchange],
      ['Routing key', rabbitmq.routing_key === '' ? '(empty)' : rabbitmq.routing_key],
    ];
  }
  if (sqs) {
    return [
      ['Region', sqs.region],
      ['FIFO queue', sqs.fifo ? 'yes' : 'no'],
      ['Requests', sqs.signed ? 'signed with its access key' : 'unsigned'],
    ];
  }
  return [];
}

function describeTls(tls) {
  if (tls === undefined) return 'off';
  const parts = ['on'];
  if (tls.ca) parts.push('its own CA');
  if (tls.servername) parts.push(`certificate name ${tls.servername}`);
  if (tls.reject_unauthorized === false) parts.push('certificate NOT verified');
  return parts.join(', ');
}

// A RabbitMQ node of one test file alone, stopped and started again on its data for outages: the
// one implementation the bench uses too (scripts/brokers/rabbitmq.mjs).
export { startRabbitmq, type RabbitmqNode, type RabbitmqOptions } from '../../scripts/brokers/rabbitmq.mjs';
